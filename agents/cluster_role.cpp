#include "agents/cluster_role.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <limits>
#include <zmq.hpp>

#include "agents/agent_loop.hpp"
#include "agents/background_worker.hpp"
#include "agents/kube_cluster_view.hpp"
#include "agents/node_key_gate.hpp"
#include "agents/ocm_writer.hpp"
#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"

namespace gantry::agents {

namespace {

bool readable(const zmq_pollitem_t& item) {
  return (item.revents & ZMQ_POLLIN) != 0;
}

}  // namespace

ClusterRole::ClusterRole(ClusterRoleOptions options)
    : options_(std::move(options)),
      context_(std::make_unique<zmq::context_t>(1)),
      nodes_(options_.node_stale_ms) {
  if (!options_.node_listen.empty()) {
    if (options_.node_keypair) {
      node_key_gate_ = std::make_unique<NodeKeyGate>(*context_, options_.node_keys);
    }
    nodes_socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::router);
    nodes_socket_->set(zmq::sockopt::linger, 0);
    if (options_.node_keypair) support::make_curve_server(*nodes_socket_, *options_.node_keypair);
    try {
      nodes_socket_->bind(options_.node_listen);
    } catch (const zmq::error_t& e) {
      throw std::runtime_error("--node-listen " + options_.node_listen + ": " + e.what());
    }
    node_endpoint_ = nodes_socket_->get(zmq::sockopt::last_endpoint);
  }
  if (options_.kube != nullptr) {
    view_ = std::make_unique<KubeClusterView>(*options_.kube, options_.is_own);
    awaiting_sync_ = true;
    view_->start();
    if (options_.lease) lease_ = std::make_unique<LeaseElector>(*options_.kube, *options_.lease);
    if (!options_.ocm_namespace.empty())
      ocm_ = std::make_unique<OcmScoreWriter>(*options_.kube, options_.ocm_namespace);
    if (lease_ || ocm_) worker_ = std::make_unique<BackgroundWorker>();
  }
}

ClusterRole::~ClusterRole() {
  if (view_) view_->stop();
  worker_.reset();                // the elector is this thread's again
  if (lease_) lease_->release();  // a standby takes over at once, not after the lease duration
}

void ClusterRole::prepare(AgentCore& core) {
  Outbox unsent;  // the first usage report carries it
  if (awaiting_sync_) core.set_not_ready_reason(kSyncingReason, unsent);
}

std::size_t ClusterRole::refused_node_keys() const {
  return node_key_gate_ ? node_key_gate_->refused() : 0;
}

// Slots in order: the node key gate, the node socket, the view's fd, the
// worker's fd (each if any).
void ClusterRole::add_poll_items(std::vector<zmq_pollitem_t>& items) {
  if (node_key_gate_) items.push_back({node_key_gate_->socket().handle(), 0, ZMQ_POLLIN, 0});
  if (nodes_socket_) items.push_back({nodes_socket_->handle(), 0, ZMQ_POLLIN, 0});
  if (view_) items.push_back({nullptr, view_->changed_fd(), ZMQ_POLLIN, 0});
  if (worker_) items.push_back({nullptr, worker_->done_fd(), ZMQ_POLLIN, 0});
}

void ClusterRole::on_polled(const zmq_pollitem_t* items, std::size_t count, TimeMs now,
                            AgentCore& core, Outbox& out) {
  std::size_t slot = 0;
  if (node_key_gate_ && slot < count && readable(items[slot++])) node_key_gate_->answer_pending();
  if (nodes_socket_ && slot < count && readable(items[slot++]))
    receive_reports(now, core.cluster());
  if (view_ && slot < count && readable(items[slot++])) on_view_changed(now, core, out);
  if (worker_ && slot < count && readable(items[slot++])) worker_->run_finished();
  apply_nodes(now, core, out);
  on_timers(now, core, out);
}

// The first snapshot of a synced view is what the hub and the scores see
// first: before it, node reports alone would show a cluster without
// Kubernetes' nodes and pods.
void ClusterRole::on_view_changed(TimeMs now, AgentCore& core, Outbox& out) {
  view_->clear_changed();
  if (!view_->synced()) return;
  try {
    nodes_changed_ |= nodes_.on_kubernetes(view_->snapshot());
  } catch (const std::exception& bad) {
    spdlog::warn("Kubernetes view: {}", bad.what());
    return;
  }
  if (!awaiting_sync_) return;
  awaiting_sync_ = false;
  spdlog::info("Kubernetes view synced: {} usable node(s)", nodes_.nodes().size());
  core.set_not_ready_reason("", out);
  nodes_changed_ = true;    // even none: the report saying so goes out now
  next_nodes_apply_ = now;  // at once, not after the apply interval
  next_scores_ = now;       // the first scores, from the synced view
}

void ClusterRole::apply_nodes(TimeMs now, AgentCore& core, Outbox& out) {
  nodes_changed_ |= nodes_.expire(now);
  if (awaiting_sync_ || !nodes_changed_ || now < next_nodes_apply_) return;
  core.update_nodes(nodes_.nodes(), out);
  nodes_changed_ = false;
  next_nodes_apply_ = now + options_.nodes_apply_interval_ms;
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
  if (lease_) tend_lease(now);
  if (!awaiting_sync_ && now >= next_scores_) {
    next_scores_ = now + options_.scores_interval_ms;
    refresh_scores(core, out);
  }
}

// As client-go's renew loop: renew every lease_renew_ms, retry a failure
// every lease_retry_ms, and give up once no renewal has succeeded within the
// renew deadline, whether the attempts failed or never answered.
void ClusterRole::tend_lease(TimeMs now) {
  // Elected just before the loop started: that counts as the last renewal.
  if (!lease_deadline_) lease_deadline_ = now + options_.lease_renew_deadline_ms;
  if (stop_status_ < 0 && now >= *lease_deadline_) {
    lose_lease("no renewal succeeded within " + std::to_string(options_.lease_renew_deadline_ms) +
               " ms" + (renewal_in_flight_ ? " (the last one has not answered)" : ""));
    return;
  }
  if (!renewal_in_flight_ && now >= next_renew_) start_renewal(now);
}

void ClusterRole::start_renewal(TimeMs now) {
  renewal_in_flight_ = true;
  worker_->post([this, now]() -> BackgroundWorker::Continuation {
    const bool leads = lease_->try_acquire_or_renew(LeaseNow::current());
    std::string holder = lease_->observed_holder();
    return [this, now, leads, holder = std::move(holder)] { on_renewed(now, leads, holder); };
  });
}

// Loop thread. Another holder in the answer ends the term at once; a plain
// failure (the server unreachable, a conflict) is retried until the deadline.
void ClusterRole::on_renewed(TimeMs started, bool leads, const std::string& holder) {
  renewal_in_flight_ = false;
  if (leads) {
    lease_deadline_ = started + options_.lease_renew_deadline_ms;
    next_renew_ = started + options_.lease_renew_ms;
    return;
  }
  if (!holder.empty() && holder != options_.lease->identity) {
    lose_lease(holder + " holds it now");
    return;
  }
  next_renew_ = started + options_.lease_retry_ms;
}

// Losing the Lease ends this agent (client-go's OnStoppedLeading): the new
// leader adopts what runs; this one restarts as a standby.
void ClusterRole::lose_lease(const std::string& why) {
  if (stop_status_ >= 0) return;
  spdlog::error("lost the Lease: {}", why);
  stop_status_ = kLostLeadershipStatus;
}

void ClusterRole::refresh_scores(AgentCore& core, Outbox& out) {
  const protocol::PlacementScores scores =
      placement_scores(core.usage_report().nodes, wall_now_ms(), 2 * options_.scores_interval_ms);
  core.set_placement_scores(scores, out);
  if (ocm_) start_score_write(scores);
}

// One write at a time: a write still waiting on the API server when the
// next scores are due makes this round's object wait for the next round.
void ClusterRole::start_score_write(const protocol::PlacementScores& scores) {
  if (score_write_in_flight_) {
    spdlog::warn("AddOnPlacementScore: the previous write has not answered; skipping this one");
    return;
  }
  score_write_in_flight_ = true;
  worker_->post([this, scores]() -> BackgroundWorker::Continuation {
    try {
      ocm_->write(scores);
    } catch (const std::exception& failed) {
      spdlog::warn("AddOnPlacementScore: {}", failed.what());
    }
    return [this] { score_write_in_flight_ = false; };
  });
}

std::optional<TimeMs> ClusterRole::next_deadline() const {
  TimeMs next = awaiting_sync_ ? std::numeric_limits<TimeMs>::max() : next_scores_;
  if (lease_ && !renewal_in_flight_) next = std::min(next, next_renew_);
  if (lease_deadline_) next = std::min(next, *lease_deadline_);
  if (const auto expiry = nodes_.next_expiry()) next = std::min(next, *expiry);
  if (nodes_changed_ && !awaiting_sync_) next = std::min(next, next_nodes_apply_);
  return next;
}

bool wait_for_leadership(LeaseElector& lease, int stop_fd, std::chrono::milliseconds retry) {
  bool announced = false;
  while (!lease.try_acquire_or_renew(LeaseNow::current())) {
    if (!announced) spdlog::info("standing by: another cluster-role agent holds the Lease");
    announced = true;
    pollfd stop{stop_fd, POLLIN, 0};
    if (::poll(&stop, 1, static_cast<int>(retry.count())) > 0) return false;
  }
  spdlog::info("holding the Lease: this agent leads its cluster");
  return true;
}

}  // namespace gantry::agents
