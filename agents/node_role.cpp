#include "agents/node_role.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <zmq.hpp>

#include "agents/proc_stats.hpp"
#include "hub/field_error.hpp"
#include "protocol/envelope.hpp"

namespace gantry::agents {
namespace {

using Clock = std::chrono::steady_clock;

void validate(const NodeRoleOptions& options) {
  if (options.cluster_agent_endpoint.empty()) {
    throw hub::FieldError("cluster_agent_endpoint", "", "is required");
  }
  if (options.node.empty()) throw hub::FieldError("node", "", "is required");
  if (options.report_interval_ms <= 0) {
    throw hub::FieldError("report_interval_ms", std::to_string(options.report_interval_ms),
                          "must be > 0");
  }
}

void send_report(zmq::socket_t& socket, const protocol::NodeReport& report, std::uint64_t seq) {
  const std::string frame = protocol::encode(report, seq);
  if (!socket.send(zmq::buffer(frame), zmq::send_flags::dontwait)) {
    spdlog::debug("node report {} dropped: the cluster-role agent is not reachable yet", seq);
  }
}

// The cluster-role agent answers only frames it cannot use (ErrorReply): say
// so, since every later report will fail the same way.
void log_replies(zmq::socket_t& socket) {
  zmq::message_t message;
  while (socket.recv(message, zmq::recv_flags::dontwait)) {
    // A ROUTER may put an empty delimiter first: the payload is the last part.
    while (message.more()) {
      if (!socket.recv(message, zmq::recv_flags::none)) return;
    }
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(message.to_string_view(), error);
    const auto reply =
        envelope ? protocol::decode_payload<protocol::ErrorReply>(*envelope, error) : std::nullopt;
    if (reply) {
      spdlog::warn("the cluster-role agent refused a node report: {}: {}", reply->code,
                   reply->message);
    } else {
      spdlog::warn("unexpected frame from the cluster-role agent ({}): {}", error.code,
                   error.message);
    }
  }
}

// The DEALER to the cluster-role agent. libzmq never retries a connection
// whose key the server refused (ZAP 400), so a refusal (the cluster agent
// restarted without this node's key in --node-keys, say) is watched on the
// socket's monitor and answered with a fresh socket at the next report.
class ClusterAgentLink {
 public:
  ClusterAgentLink(zmq::context_t& context, const NodeRoleOptions& options)
      : context_(context), options_(options) {
    open();
  }

  void send(const protocol::NodeReport& report, std::uint64_t seq) {
    if (refused_) open();
    send_report(*socket_, report, seq);
  }

  // Waits until `deadline`, a reply, a refusal or the stop fd; true when
  // stop_fd is readable.
  bool wait_for_stop(int stop_fd, Clock::time_point deadline) {
    std::vector<zmq::pollitem_t> items{{nullptr, stop_fd, ZMQ_POLLIN, 0},
                                       {socket_->handle(), 0, ZMQ_POLLIN, 0}};
    if (refusals_) items.push_back({refusals_->handle(), 0, ZMQ_POLLIN, 0});
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    try {
      zmq::poll(items, std::max(left, std::chrono::milliseconds(0)));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return false;  // a signal: the stop fd will say if it was ours
      throw;
    }
    if (items[1].revents & ZMQ_POLLIN) log_replies(*socket_);
    if (items.size() > 2 && (items[2].revents & ZMQ_POLLIN)) on_refused();
    return (items[0].revents & ZMQ_POLLIN) != 0;
  }

 private:
  void open() {
    refusals_.reset();
    socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
    socket_->set(zmq::sockopt::routing_id, "node/" + options_.node);
    socket_->set(zmq::sockopt::linger, 0);
    // A report is only worth its freshness: while the cluster-role agent is
    // away, keep at most one queued rather than a backlog of stale ones.
    socket_->set(zmq::sockopt::sndhwm, 1);
    if (options_.keys) {
      support::make_curve_client(*socket_, *options_.keys);
      const std::string monitor = "inproc://node-role-refusals-" + std::to_string(++generation_);
      if (zmq_socket_monitor(socket_->handle(), monitor.c_str(), ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) ==
          0) {
        refusals_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::pair);
        refusals_->set(zmq::sockopt::linger, 0);
        refusals_->connect(monitor);
      }
    }
    socket_->connect(options_.cluster_agent_endpoint);
    refused_ = false;
  }

  void on_refused() {
    zmq::message_t event;
    while (refusals_->recv(event, zmq::recv_flags::dontwait)) {
    }
    if (!warned_) {
      warned_ = true;
      spdlog::warn(
          "the cluster-role agent at {} refused this node's key {}: it must be that "
          "agent's own --key or listed in its --node-keys; retrying at each report",
          options_.cluster_agent_endpoint, options_.keys->own.public_key);
    }
    refused_ = true;
  }

  zmq::context_t& context_;
  const NodeRoleOptions& options_;
  std::unique_ptr<zmq::socket_t> socket_;
  std::unique_ptr<zmq::socket_t> refusals_;  // the socket's monitor, with keys
  int generation_ = 0;                       // each monitor its own inproc endpoint
  bool refused_ = false;
  bool warned_ = false;  // once: a refused node retries every report
};

class GpuErrorLog {
 public:
  // Logs NVML's problems when they change, not every report.
  void note(const std::string& error) {
    if (error == last_) return;
    if (!error.empty()) spdlog::warn("{}", error);
    if (error.empty() && !last_.empty()) spdlog::info("NVML reads every GPU again");
    last_ = error;
  }

 private:
  std::string last_;
};

int report_until_stopped(const NodeRoleOptions& options, int stop_fd) {
  Nvml nvml(options.nvml_library);
  zmq::context_t context(1);
  ClusterAgentLink link(context, options);
  spdlog::info("node role: reporting node {} of cluster {} to {} every {} ms", options.node,
               options.cluster, options.cluster_agent_endpoint, options.report_interval_ms);
  GpuErrorLog gpu_errors;
  const auto interval = std::chrono::milliseconds(options.report_interval_ms);
  std::uint64_t seq = 0;
  auto next_report = Clock::now();
  while (true) {
    if (Clock::now() >= next_report) {
      const protocol::NodeReport report = sample_node(options, nvml);
      gpu_errors.note(report.gpu_error);
      link.send(report, ++seq);
      if (options.metrics) {
        ++options.metrics->node_reports;
        if (!report.gpu_error.empty()) ++options.metrics->nvml_read_errors;
      }
      next_report = Clock::now() + interval;
    }
    if (link.wait_for_stop(stop_fd, next_report)) return 0;
  }
}

}  // namespace

protocol::NodeReport sample_node(const NodeRoleOptions& options, Nvml& nvml) {
  const HostStats host = read_host_stats(options.proc);
  GpuProbe probe = nvml.sample();
  protocol::NodeReport report;
  report.cluster = options.cluster;
  report.node = options.node;
  report.cpu_milli = host.cpu_milli;
  report.memory_bytes = host.memory_bytes;
  report.memory_available_bytes = host.memory_available_bytes;
  report.load1 = host.load1;
  report.gpus = std::move(probe.gpus);
  report.gpu_error = std::move(probe.error);
  return report;
}

int run_node_role(const NodeRoleOptions& options, int stop_fd) {
  try {
    validate(options);
    return report_until_stopped(options, stop_fd);
  } catch (const std::exception& e) {
    spdlog::error("node role stopped: {}", e.what());
    return 1;
  }
}

}  // namespace gantry::agents
