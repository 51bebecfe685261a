#include "agents/cluster_role.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <zmq.hpp>

#include "agents/agent_loop.hpp"
#include "agents/kube_cluster_view.hpp"
#include "agents/ocm_writer.hpp"
#include "protocol/envelope.hpp"

namespace gantry::agents {

namespace {

bool readable(const zmq_pollitem_t& item) {
  return (item.revents & ZMQ_POLLIN) != 0;
}

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

ClusterRole::ClusterRole(ClusterRoleOptions options)
    : options_(std::move(options)),
      context_(std::make_unique<zmq::context_t>(1)),
      nodes_(options_.node_stale_ms) {
  if (!options_.node_listen.empty()) {
    nodes_socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::router);
    nodes_socket_->set(zmq::sockopt::linger, 0);
    try {
      nodes_socket_->bind(options_.node_listen);
    } catch (const zmq::error_t& e) {
      throw std::runtime_error("--node-listen " + options_.node_listen + ": " + e.what());
    }
    node_endpoint_ = nodes_socket_->get(zmq::sockopt::last_endpoint);
  }
  if (options_.kube != nullptr) {
    view_ = std::make_unique<KubeClusterView>(*options_.kube, options_.is_own);
    view_->start();
    if (options_.lease) lease_ = std::make_unique<LeaseElector>(*options_.kube, *options_.lease);
    if (!options_.ocm_namespace.empty())
      ocm_ = std::make_unique<OcmScoreWriter>(*options_.kube, options_.ocm_namespace);
  }
}

ClusterRole::~ClusterRole() {
  if (view_) view_->stop();
  if (lease_) lease_->release();  // a standby takes over at once, not after the lease duration
}

// Slots in order: the node socket (if any), then the view's fd (if any).
void ClusterRole::add_poll_items(std::vector<zmq_pollitem_t>& items) {
  if (nodes_socket_) items.push_back({nodes_socket_->handle(), 0, ZMQ_POLLIN, 0});
  if (view_) items.push_back({nullptr, view_->changed_fd(), ZMQ_POLLIN, 0});
}

void ClusterRole::on_polled(const zmq_pollitem_t* items, std::size_t count, TimeMs now,
                            AgentCore& core, Outbox& out) {
  std::size_t slot = 0;
  if (nodes_socket_ && slot < count && readable(items[slot++]))
    receive_reports(now, core.cluster());
  if (view_ && slot < count && readable(items[slot++])) {
    view_->clear_changed();
    if (view_->synced()) {
      try {
        nodes_changed_ |= nodes_.on_kubernetes(view_->snapshot());
      } catch (const std::exception& bad) {
        spdlog::warn("Kubernetes view: {}", bad.what());
      }
    }
  }
  nodes_changed_ |= nodes_.expire(now);
  if (nodes_changed_ && now >= next_nodes_apply_) {
    core.update_nodes(nodes_.nodes(), out);
    nodes_changed_ = false;
    next_nodes_apply_ = now + options_.nodes_apply_interval_ms;
  }
  on_timers(now, core, out);
}

void ClusterRole::receive_reports(TimeMs now, const std::string& cluster) {
  zmq::message_t part;
  while (nodes_socket_->recv(part, zmq::recv_flags::dontwait)) {
    while (part.more())
      if (!nodes_socket_->recv(part, zmq::recv_flags::none)) return;
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(part.to_string(), error);
    std::optional<protocol::NodeReport> report;
    if (envelope) report = protocol::decode_payload<protocol::NodeReport>(*envelope, error);
    if (!report) {
      spdlog::warn("undecodable node report ({}): {}", error.code, error.message);
      continue;
    }
    if (!report->cluster.empty() && report->cluster != cluster) {
      spdlog::warn("node {} reports for cluster {}, not {}: ignored", report->node, report->cluster,
                   cluster);
      continue;
    }
    if (report->node.empty()) {
      spdlog::warn("a node report without NodeReport.node: ignored");
      continue;
    }
    if (nodes_.reporting() == 0 || !report->gpu_error.empty())
      spdlog::debug("node {}: {} GPU(s) {}", report->node, report->gpus.size(), report->gpu_error);
    nodes_changed_ |= nodes_.on_report(*report, now);
  }
}

void ClusterRole::on_timers(TimeMs now, AgentCore& core, Outbox& out) {
  if (lease_ && now >= next_renew_) {
    next_renew_ = now + options_.lease_renew_ms;
    renew_lease();
  }
  if (now >= next_scores_) {
    next_scores_ = now + options_.scores_interval_ms;
    refresh_scores(core, out);
  }
}

// Losing the Lease ends this agent (client-go's OnStoppedLeading): the new
// leader adopts what runs; this one restarts as a standby.
void ClusterRole::renew_lease() {
  if (lease_->try_acquire_or_renew(std::chrono::system_clock::now())) return;
  spdlog::error("lost the Lease: another cluster-role agent leads now");
  stop_status_ = kLostLeadershipStatus;
}

void ClusterRole::refresh_scores(AgentCore& core, Outbox& out) {
  const protocol::PlacementScores scores =
      placement_scores(core.usage_report().nodes, wall_now_ms(), 2 * options_.scores_interval_ms);
  core.set_placement_scores(scores, out);
  if (!ocm_) return;
  try {
    ocm_->write(scores);
  } catch (const std::exception& failed) {
    spdlog::warn("AddOnPlacementScore: {}", failed.what());
  }
}

std::optional<TimeMs> ClusterRole::next_deadline() const {
  TimeMs next = next_scores_;
  if (lease_) next = std::min(next, next_renew_);
  if (const auto expiry = nodes_.next_expiry()) next = std::min(next, *expiry);
  if (nodes_changed_) next = std::min(next, next_nodes_apply_);
  return next;
}

bool wait_for_leadership(LeaseElector& lease, int stop_fd, std::chrono::milliseconds retry) {
  bool announced = false;
  while (!lease.try_acquire_or_renew(std::chrono::system_clock::now())) {
    if (!announced) spdlog::info("standing by: another cluster-role agent holds the Lease");
    announced = true;
    pollfd stop{stop_fd, POLLIN, 0};
    if (::poll(&stop, 1, static_cast<int>(retry.count())) > 0) return false;
  }
  spdlog::info("holding the Lease: this agent leads its cluster");
  return true;
}

}  // namespace gantry::agents
