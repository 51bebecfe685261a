#include "agents/node_role.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
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

zmq::socket_t connect_dealer(zmq::context_t& context, const NodeRoleOptions& options) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::routing_id, "node/" + options.node);
  socket.set(zmq::sockopt::linger, 0);
  // A report is only worth its freshness: while the cluster-role agent is away,
  // keep at most one queued rather than a backlog of stale ones.
  socket.set(zmq::sockopt::sndhwm, 1);
  socket.connect(options.cluster_agent_endpoint);
  return socket;
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

// Waits until `deadline`, a reply or the stop fd; true when stop_fd is readable.
bool wait_for_stop(zmq::socket_t& socket, int stop_fd, Clock::time_point deadline) {
  std::vector<zmq::pollitem_t> items{{socket.handle(), 0, ZMQ_POLLIN, 0},
                                     {nullptr, stop_fd, ZMQ_POLLIN, 0}};
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  try {
    zmq::poll(items, std::max(left, std::chrono::milliseconds(0)));
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return false;  // a signal: the stop fd will say if it was ours
    throw;
  }
  if (items[0].revents & ZMQ_POLLIN) log_replies(socket);
  return (items[1].revents & ZMQ_POLLIN) != 0;
}

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
  zmq::socket_t socket = connect_dealer(context, options);
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
      send_report(socket, report, ++seq);
      next_report = Clock::now() + interval;
    }
    if (wait_for_stop(socket, stop_fd, next_report)) return 0;
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
