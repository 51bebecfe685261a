// The agent's one thread: a ZeroMQ DEALER to the hub, the executor's wake-up
// fd and a stop fd, all in one zmq::poll whose timeout is the time to the next
// timer (heartbeat, hub silence, reconnect, simulated replica end, the end of
// a prepared part's hold, a running part's time limit). It decodes
// frames, hands them to the AgentCore and sends what the core decided; every
// decision lives in the core and the HubSession.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agents/agent_core.hpp"
#include "agents/agent_metrics.hpp"
#include "agents/hub_session.hpp"
#include "agents/log_streams.hpp"
#include "agents/test_faults.hpp"
#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace gantry::agents {

inline constexpr const char* kAgentVersion = "gantry-agent/0.1.0";

class LoopExtension;

struct LoopConfig {
  // One hub, or several sharing one store ("a,b,c"): tried in turn, a
  // session at a time, until one answers.
  std::string hub_endpoint;
  SessionTiming timing;
  TestFaults faults = {};  // tests only
  // A cluster-role agent's node reports, Kubernetes view and Lease
  // (agents/loop_extension.hpp); nullptr for a plain agent. Must outlive run().
  LoopExtension* extension = nullptr;
  // The hub's public key and this agent's keypair: the DEALER is a CurveZMQ
  // client. nullopt: plaintext (--insecure).
  std::optional<support::CurveClientKeys> hub_keys = std::nullopt;
  // Counted as the loop goes (agents/agent_metrics.hpp); nullptr: not counted.
  // Must outlive run().
  AgentMetrics* metrics = nullptr;
};

// "agent/<cluster>/<16 random hex digits>", new for each connection.
std::string agent_routing_id(const std::string& cluster);

// Monotonic milliseconds for the loop's timers.
TimeMs steady_now_ms();
// Unix milliseconds, for what is compared with other machines' clocks
// (Prometheus, OCM score validity).
std::int64_t wall_now_ms();

class AgentLoop {
 public:
  AgentLoop(LoopConfig config, AgentCore& core, Executor& executor);
  ~AgentLoop();
  AgentLoop(const AgentLoop&) = delete;
  AgentLoop& operator=(const AgentLoop&) = delete;

  // Serves until `stop_fd` turns readable, then kills every replica and
  // returns 0; returns kExitAfterAdmitStatus when the test fault
  // exit-after-admit stopped it. Throws std::runtime_error when the hub
  // endpoint is unusable.
  int run(int stop_fd);
  // Frames handed to ZeroMQ so far (tests: proof that nothing else was sent).
  std::uint64_t frames_sent() const { return frames_sent_; }

 private:
  void act_on_session(TimeMs now);
  void open_socket(TimeMs now);
  void watch_for_refusal();
  void on_key_refused(TimeMs now);
  void close_socket();
  void drop_session(TimeMs now, const char* why);
  bool send(const std::string& frame);
  void receive_frames(TimeMs now);
  void handle_frame(const std::string& frame, TimeMs now);
  void on_message(const protocol::Welcome& welcome, TimeMs now);
  void on_message(const protocol::Heartbeat& beat, TimeMs now);
  void on_message(const protocol::Prepare& prepare, TimeMs now);
  void on_message(const protocol::Commit& commit, TimeMs now);
  void on_message(const protocol::Abort& abort, TimeMs now);
  void on_message(const protocol::Cancel& cancel, TimeMs now);
  void on_message(const protocol::Resize& resize, TimeMs now);
  void on_message(const protocol::ErrorReply& reply, TimeMs now);
  void on_message(const protocol::LogsRequest& request, TimeMs now);
  void on_message(const protocol::LogsStop& stop, TimeMs now);
  void send_log_chunk(const protocol::LogsChunk& chunk);
  void flush();
  // The gauges of config_.metrics, once a loop turn.
  void publish_gauges();
  void count_exits();
  // The hub heard us as of the session's confirmed contact: the executor
  // keeps its runs, and the fence moves on.
  void note_contact();
  // Cut off past the fence timeout: stop every run (protocol/lease_timing.hpp).
  void fence_if_cut_off(TimeMs now);
  std::optional<TimeMs> fence_deadline() const;
  TimeMs next_deadline() const;
  void deliver_and_close();
  template <class T>
  std::optional<T> decode_or_answer(const protocol::Envelope& envelope);

  const std::string& hub() const { return hubs_[hub_index_]; }

  LoopConfig config_;
  std::vector<std::string> hubs_;  // config_.hub_endpoint's list
  std::size_t hub_index_ = 0;      // the one this session talks to
  AgentCore& core_;
  Executor& executor_;
  HubSession session_;
  std::unique_ptr<zmq::context_t> context_;
  std::unique_ptr<zmq::socket_t> socket_;
  std::unique_ptr<zmq::socket_t> refusals_;  // socket_'s monitor, with keys
  std::uint64_t socket_count_ = 0;           // each monitor its own inproc endpoint
  FaultFilter faults_;
  std::uint64_t next_seq_ = 1;
  std::uint64_t frames_sent_ = 0;
  std::uint64_t received_seq_ = 0;  // the envelope seq of the frame being handled
  bool fenced_ = false;             // runs stopped since the last confirmed contact
  int stop_status_ = -1;  // >= 0 once the loop must stop with that status
  Outbox outbox_;         // decided but not yet sent (nothing goes out before Welcome)
  std::vector<ReplicaExit> exits_;
  std::vector<ReplicaProgress> progress_;
  LogStreams logs_;  // gantryctl logs of this agent's replicas
};

}  // namespace gantry::agents
