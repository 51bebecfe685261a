#include "agents/agent_loop.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <zmq.hpp>

#include "agents/loop_extension.hpp"
#include "support/comma_list.hpp"
#include "support/log_fields.hpp"
#include "support/random_hex.hpp"

namespace gantry::agents {

namespace {

// Frames read per wake-up before timers and exits get their turn.
constexpr int kMaxFramesPerWake = 256;
// How long an agent stopped by exit-after-admit waits for its Admit to leave.
constexpr int kDeliverMs = 10'000;

TimeMs time_until(TimeMs deadline, TimeMs now) {
  return deadline <= now ? 0 : deadline - now;
}

bool readable(const zmq_pollitem_t& item) {
  return (item.revents & ZMQ_POLLIN) != 0;
}

// Each decision is about one dispatch of one job.
support::LogFields fields_of(const OutboundMessage& message) {
  return std::visit(
      [](const auto& decision) {
        return support::LogFields{.job = decision.job, .dispatch = decision.dispatch_id};
      },
      message);
}

void log_decision(const OutboundMessage& message) {
  const support::LogScope log_scope(fields_of(message));
  if (const auto* admit = std::get_if<protocol::Admit>(&message)) {
    spdlog::info("dispatch {} (job {}): part {} admitted, its resources held{}", admit->dispatch_id,
                 admit->job, admit->part,
                 admit->rendezvous_host.empty() ? std::string()
                                                : "; rendezvous " + admit->rendezvous_host + ":" +
                                                      std::to_string(admit->rendezvous_port));
  } else if (const auto* reject = std::get_if<protocol::Reject>(&message)) {
    spdlog::info("dispatch {} (job {}): rejected: {}", reject->dispatch_id, reject->job,
                 reject->reason);
  } else if (const auto* status = std::get_if<protocol::StatusUpdate>(&message)) {
    spdlog::info("dispatch {} (job {}): {} {}", status->dispatch_id, status->job, status->phase,
                 status->message);
  } else if (const auto* resized = std::get_if<protocol::Resized>(&message)) {
    spdlog::info("dispatch {} (job {}): elastic epoch {} {}{}", resized->dispatch_id, resized->job,
                 resized->elastic_epoch,
                 resized->admitted ? "resized" : "refused: ", resized->reason);
  }
}

}  // namespace

std::string agent_routing_id(const std::string& cluster) {
  return "agent/" + cluster + "/" + support::random_hex(8);
}

TimeMs steady_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

AgentLoop::AgentLoop(LoopConfig config, AgentCore& core, Executor& executor)
    : config_(std::move(config)),
      hubs_(support::comma_list(config_.hub_endpoint)),
      core_(core),
      executor_(executor),
      session_(config_.timing, steady_now_ms()),
      context_(std::make_unique<zmq::context_t>(1)),
      faults_(config_.faults) {}

AgentLoop::~AgentLoop() = default;

int AgentLoop::run(int stop_fd) {
  // Every line of this thread concerns this agent's cluster.
  const support::LogScope log_scope({.cluster = core_.cluster()});
  std::vector<zmq_pollitem_t> items;
  while (stop_status_ < 0) {
    act_on_session(steady_now_ms());
    // Slots in order: stop fd, executor wake-up fd (if it has one), hub socket,
    // hub key refusals (with keys).
    items.clear();
    items.push_back({nullptr, stop_fd, ZMQ_POLLIN, 0});
    if (executor_.wake_fd() >= 0) items.push_back({nullptr, executor_.wake_fd(), ZMQ_POLLIN, 0});
    const bool has_executor_fd = items.size() == 2;
    const std::size_t hub_slot = items.size();
    if (socket_) items.push_back({socket_->handle(), 0, ZMQ_POLLIN, 0});
    const std::size_t refusals_slot = items.size();
    if (socket_ && refusals_) items.push_back({refusals_->handle(), 0, ZMQ_POLLIN, 0});
    const std::size_t hub_slots = items.size();
    if (config_.extension != nullptr) config_.extension->add_poll_items(items);

    const TimeMs now = steady_now_ms();
    try {
      zmq::poll(items, std::chrono::milliseconds(time_until(next_deadline(), now)));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      throw;
    }
    if (readable(items[0])) break;

    const TimeMs after = steady_now_ms();
    if (socket_ && refusals_ && readable(items[refusals_slot])) {
      on_key_refused(after);
    } else if (socket_ && readable(items[hub_slot])) {
      receive_frames(after);
    }
    if (config_.extension != nullptr) {
      config_.extension->on_polled(items.data() + hub_slots, items.size() - hub_slots, after,
                                   core_, outbox_);
      if (config_.extension->stop_status() >= 0) stop_status_ = config_.extension->stop_status();
    }
    const auto due = executor_.next_deadline();
    if ((has_executor_fd && readable(items[1])) || (due && *due <= after)) {
      // Progress first: a replica that ran and ended between two wake-ups ran.
      progress_.clear();
      executor_.collect_progress(progress_);
      if (!progress_.empty()) core_.on_progress(progress_, after, outbox_);
      exits_.clear();
      executor_.collect_exits(after, exits_);
      if (!exits_.empty()) {
        count_exits();
        core_.on_exits(exits_, outbox_);
      }
    }
    core_.expire_holds(after, outbox_);
    core_.expire_time_limits(after, outbox_);
    core_.give_up_waiting(after, outbox_);
    fence_if_cut_off(after);
    if (const auto logs = logs_.next_poll(); logs && *logs <= after) {
      logs_.poll(
          after, [this](const std::string& job) { return core_.runs_job(job); },
          [this](const protocol::LogsChunk& chunk) { send_log_chunk(chunk); });
    }
    flush();
    publish_gauges();
  }
  const bool extension_stopped =
      config_.extension != nullptr && config_.extension->stop_status() >= 0;
  if (stop_status_ >= 0) {
    if (extension_stopped) {
      spdlog::warn("stopping with status {}: this agent no longer leads its cluster", stop_status_);
    } else {
      spdlog::warn("test fault exit-after-admit: stopping with status {} after the first Admit",
                   stop_status_);
    }
    deliver_and_close();
  } else {
    spdlog::info("stopping: killing {} running dispatches, releasing {} prepared parts",
                 core_.running_count(), core_.prepared_count());
  }
  executor_.shutdown();
  close_socket();
  return std::max(stop_status_, 0);
}

TimeMs AgentLoop::next_deadline() const {
  TimeMs deadline = session_.next_deadline();
  if (const auto due = executor_.next_deadline()) deadline = std::min(deadline, *due);
  if (const auto hold = core_.next_hold_deadline()) deadline = std::min(deadline, *hold);
  if (const auto limit = core_.next_time_limit()) deadline = std::min(deadline, *limit);
  if (const auto give_up = core_.next_give_up()) deadline = std::min(deadline, *give_up);
  if (const auto fence = fence_deadline()) deadline = std::min(deadline, *fence);
  if (const auto logs = logs_.next_poll()) deadline = std::min(deadline, *logs);
  if (config_.extension != nullptr) {
    if (const auto due = config_.extension->next_deadline()) deadline = std::min(deadline, *due);
  }
  return deadline;
}

// What was handed to ZeroMQ leaves before the agent does: closing the socket
// with a linger and ending the context waits for it.
void AgentLoop::deliver_and_close() {
  if (socket_) socket_->set(zmq::sockopt::linger, kDeliverMs);
  close_socket();
  context_->close();
}

void AgentLoop::act_on_session(TimeMs now) {
  // A loop that stalled (starting many replicas) reads what came meanwhile
  // before it judges the hub silent.
  if (socket_ && session_.due(now) == HubSession::Action::kDisconnect) receive_frames(now);
  // Several hubs: a silent one may have died and another taken its store
  // over; the runs are kept, and the next hub takes them back.
  if (socket_ && hubs_.size() > 1 && session_.silent_for_own_liveness(now)) {
    receive_frames(now);
    if (session_.silent_for_own_liveness(now)) {
      drop_session(now, "the hub is silent");
      return;
    }
  }
  switch (session_.due(now)) {
    case HubSession::Action::kNone:
      break;
    case HubSession::Action::kConnect:
      open_socket(now);
      break;
    case HubSession::Action::kSendHeartbeat: {
      const std::uint64_t seq = next_seq_++;
      send(protocol::encode(protocol::Heartbeat{core_.cluster(), session_.hub_epoch()}, seq));
      session_.heartbeat_sent(now, seq);
      break;
    }
    case HubSession::Action::kDisconnect:
      drop_session(now, "the hub is silent");
      break;
  }
}

void AgentLoop::open_socket(TimeMs now) {
  socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::dealer);
  // A fresh routing id per connection: the hub's ROUTER does not hand a
  // routing id over, so a fixed one would lock this agent out while its old
  // connection lingers, and another peer could claim it first.
  socket_->set(zmq::sockopt::routing_id, agent_routing_id(core_.cluster()));
  socket_->set(zmq::sockopt::linger, 0);
  if (config_.hub_keys) {
    support::make_curve_client(*socket_, *config_.hub_keys);
    watch_for_refusal();
  }
  try {
    socket_->connect(hub());
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("--hub " + hub() + ": " + e.what());
  }
  spdlog::info("connecting to hub {} as cluster {}", hub(), core_.cluster());
  send(protocol::encode(core_.hello(kAgentVersion), next_seq_++));
  session_.connected(now);
}

// libzmq never retries a connection whose key the hub refused (ZAP 400):
// without this the agent would wait out the hub's silence (liveness x
// heartbeat) before trying again. The socket's monitor says so at once.
void AgentLoop::watch_for_refusal() {
  const std::string endpoint = "inproc://agent-hub-refusals-" + std::to_string(++socket_count_);
  if (zmq_socket_monitor(socket_->handle(), endpoint.c_str(), ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) !=
      0) {
    return;  // no monitor: a refusal shows as silence, as before
  }
  refusals_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::pair);
  refusals_->set(zmq::sockopt::linger, 0);
  refusals_->connect(endpoint);
}

void AgentLoop::on_key_refused(TimeMs now) {
  spdlog::error(
      "the hub at {} refused this agent's key {}: the hub's access.yaml must list it "
      "under agents, for cluster {}",
      hub(), config_.hub_keys->own.public_key, core_.cluster());
  drop_session(now, "the hub refused this agent's key");
}

void AgentLoop::close_socket() {
  refusals_.reset();
  socket_.reset();
}

// A fresh socket per session: the old one may hold frames for a hub that is
// gone, and ZeroMQ would otherwise keep reconnecting it underneath us.
// Several hubs on one store: the next session tries the next one, so that an
// agent whose hub died finds the one that took the store over (the others
// have bound nothing, and are silent).
void AgentLoop::drop_session(TimeMs now, const char* why) {
  if (hubs_.size() > 1) {
    hub_index_ = (hub_index_ + 1) % hubs_.size();
    spdlog::warn("hub session lost ({}); trying hub {} next", why, hub());
  } else {
    spdlog::warn("hub session lost ({}); reconnecting", why);
  }
  close_socket();
  session_.lost(now);
  logs_.clear();
}

bool AgentLoop::send(const std::string& frame) {
  if (!socket_) return false;
  const auto sent = socket_->send(zmq::buffer(frame), zmq::send_flags::dontwait);
  if (sent.has_value()) ++frames_sent_;
  return sent.has_value();
}

void AgentLoop::receive_frames(TimeMs now) {
  zmq::message_t part;
  for (int i = 0; i < kMaxFramesPerWake && socket_; ++i) {
    if (!socket_->recv(part, zmq::recv_flags::dontwait)) return;
    // A hub may put an empty delimiter before the payload: the payload is the
    // last part of the message.
    while (part.more()) {
      if (!socket_->recv(part, zmq::recv_flags::none)) return;
    }
    session_.heard(now);
    handle_frame(part.to_string(), now);
  }
}

template <class T>
std::optional<T> AgentLoop::decode_or_answer(const protocol::Envelope& envelope) {
  protocol::DecodeError error;
  std::optional<T> message = protocol::decode_payload<T>(envelope, error);
  if (!message) {
    spdlog::warn("undecodable {} from the hub: {}", protocol::message_type_name(envelope.type),
                 error.message);
    // Never answer an error with an error: two peers could ping-pong forever.
    if constexpr (!std::is_same_v<T, protocol::ErrorReply>) {
      send(protocol::encode_error(envelope.seq, error));
    }
  }
  return message;
}

void AgentLoop::handle_frame(const std::string& frame, TimeMs now) {
  protocol::DecodeError error;
  const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) {
    spdlog::warn("undecodable frame from the hub ({}): {}", error.code, error.message);
    send(protocol::encode_error(0, error));
    return;
  }
  received_seq_ = envelope->seq;
  // One on_message overload per message the hub sends an agent
  // (protocol/message_table.hpp): a new one without a handler does not compile.
  protocol::visit_message_type(envelope->type, [&](auto tag) {
    using Message = typename decltype(tag)::type;
    if constexpr (protocol::sent<Message>(protocol::Direction::kHubToAgent)) {
      if (auto message = decode_or_answer<Message>(*envelope)) on_message(*message, now);
    } else {
      send(protocol::encode_error(
          envelope->seq,
          {"unexpected_type", "an agent does not handle " +
                                  std::string(protocol::message_type_name(envelope->type))}));
    }
  });
}

void AgentLoop::on_message(const protocol::Heartbeat& beat, TimeMs now) {
  if (!session_.registered()) return;
  if (!session_.epoch_matches(beat.hub_epoch)) {
    drop_session(now, "the hub restarted with a new epoch");
    return;
  }
  session_.echoed(received_seq_);
  note_contact();
}

void AgentLoop::note_contact() {
  const std::optional<TimeMs> confirmed = session_.confirmed_contact();
  if (!confirmed) return;
  try {
    executor_.hub_contact(*confirmed, session_.fence_after_ms());
  } catch (const std::exception& unrecorded) {
    // Its runs' supervisors will fence them: say why before they do.
    spdlog::error("cannot record the hub contact: {}", unrecorded.what());
  }
  fenced_ = false;
}

std::optional<TimeMs> AgentLoop::fence_deadline() const {
  const std::optional<TimeMs> confirmed = session_.confirmed_contact();
  if (!confirmed || fenced_ || core_.running_count() == 0) return std::nullopt;
  return *confirmed + session_.fence_after_ms();
}

void AgentLoop::fence_if_cut_off(TimeMs now) {
  const std::optional<TimeMs> deadline = fence_deadline();
  if (!deadline || now < *deadline) return;
  const std::string why = "fenced: no confirmed contact with the hub for " +
                          std::to_string(now - *session_.confirmed_contact()) +
                          " ms, past its fence timeout of " +
                          std::to_string(session_.fence_after_ms()) + " ms";
  spdlog::error("{}: stopping {} running dispatch(es)", why, core_.running_count());
  core_.fence(why, outbox_);
  fenced_ = true;
}

// The test faults act here, before the core: a dropped Prepare is as if it
// never arrived, a refused one never reaches admission.
void AgentLoop::on_message(const protocol::Prepare& prepare, TimeMs now) {
  const support::LogScope log_scope({.job = prepare.job.name, .dispatch = prepare.dispatch_id});
  switch (faults_.on_prepare()) {
    case FaultFilter::Verdict::kDrop:
      spdlog::warn("test fault drop-prepares: ignoring the Prepare of dispatch {} (job {})",
                   prepare.dispatch_id, prepare.job.name);
      return;
    case FaultFilter::Verdict::kReject:
      outbox_.messages.push_back(protocol::Reject{prepare.dispatch_id, prepare.job.name,
                                                  kRejectPreparesReason, prepare.part});
      return;
    case FaultFilter::Verdict::kHandle:
      core_.on_prepare(prepare, now, outbox_);
      return;
  }
}

void AgentLoop::on_message(const protocol::Commit& commit, TimeMs now) {
  const support::LogScope log_scope({.job = commit.job, .dispatch = commit.dispatch_id});
  const bool running = core_.find_run(commit.dispatch_id) != nullptr;
  core_.on_commit(commit, now, outbox_);
  if (config_.metrics && !running && core_.find_run(commit.dispatch_id) != nullptr)
    ++config_.metrics->parts_started;
}

void AgentLoop::on_message(const protocol::Abort& abort, TimeMs /*now*/) {
  const support::LogScope log_scope({.job = abort.job, .dispatch = abort.dispatch_id});
  core_.on_abort(abort, outbox_);
}

void AgentLoop::on_message(const protocol::Cancel& cancel, TimeMs /*now*/) {
  const support::LogScope log_scope({.job = cancel.job, .dispatch = cancel.dispatch_id});
  core_.on_cancel(cancel, outbox_);
}

void AgentLoop::on_message(const protocol::Resize& resize, TimeMs now) {
  const support::LogScope log_scope({.job = resize.job, .dispatch = resize.dispatch_id});
  core_.on_resize(resize, now, outbox_);
}

void AgentLoop::on_message(const protocol::LogsRequest& request, TimeMs now) {
  logs_.open(
      request, [&](std::string& why) { return executor_.open_log(request, why); }, now,
      [this](const protocol::LogsChunk& chunk) { send_log_chunk(chunk); });
}

void AgentLoop::on_message(const protocol::LogsStop& stop, TimeMs /*now*/) {
  logs_.stop(stop.stream);
}

// Straight out, not through the outbox: a log read while the session is
// down is read again by whoever asks again.
void AgentLoop::send_log_chunk(const protocol::LogsChunk& chunk) {
  if (!session_.registered()) return;
  if (send(protocol::encode(chunk, next_seq_))) ++next_seq_;
}

void AgentLoop::on_message(const protocol::ErrorReply& reply, TimeMs now) {
  spdlog::warn("hub error {}: {}", reply.code, reply.message);
  if (reply.code == "not_registered") drop_session(now, "the hub does not know us");
}

void AgentLoop::on_message(const protocol::Welcome& welcome, TimeMs now) {
  if (session_.welcomed(welcome, now)) {
    core_.forget_finished();
    if (const std::optional<TimeMs> sent = session_.confirmed_contact()) executor_.ends_stored(*sent);
  }
  spdlog::info("registered with hub epoch {} (heartbeat {} ms, fence timeout {} ms)",
               welcome.hub_epoch, session_.heartbeat_ms(), session_.fence_after_ms());
  note_contact();
  // The hub wants the full node usage before anything else of this session.
  if (send(protocol::encode(core_.usage_report(), next_seq_))) {
    ++next_seq_;
    outbox_.usage_changed = false;  // that report already shows every change so far
  }
}

// Decisions wait in the outbox until the session is registered, so none is
// lost to a hub that would answer not_registered.
void AgentLoop::flush() {
  for (const std::string& warning : outbox_.warnings) spdlog::warn("{}", warning);
  outbox_.warnings.clear();
  if (!session_.registered()) return;
  std::size_t sent = 0;
  for (; sent < outbox_.messages.size(); ++sent) {
    const std::string frame =
        std::visit([&](const auto& message) { return protocol::encode(message, next_seq_); },
                   outbox_.messages[sent]);
    if (!send(frame)) break;
    log_decision(outbox_.messages[sent]);
    if (config_.metrics)
      std::visit([this](const auto& message) { config_.metrics->sent(message); },
                 outbox_.messages[sent]);
    ++next_seq_;
    if (faults_.stop_after_sending(outbox_.messages[sent])) {
      stop_status_ = kExitAfterAdmitStatus;  // nothing more leaves this agent
      return;
    }
  }
  outbox_.messages.erase(outbox_.messages.begin(),
                         outbox_.messages.begin() + static_cast<std::ptrdiff_t>(sent));
  if (outbox_.usage_changed && send(protocol::encode(core_.usage_report(), next_seq_))) {
    ++next_seq_;
    outbox_.usage_changed = false;
    if (config_.metrics) {
      ++config_.metrics->usage_reports;
      config_.metrics->last_usage_report_ms = wall_now_ms();
    }
  }
}

void AgentLoop::publish_gauges() {
  if (!config_.metrics) return;
  config_.metrics->hub_connected = session_.registered();
  config_.metrics->runs = core_.running_count();
  config_.metrics->prepared_parts = core_.prepared_count();
}

void AgentLoop::count_exits() {
  if (!config_.metrics) return;
  for (const ReplicaExit& exit : exits_) {
    ++config_.metrics->replica_exits;
    if (exit.exit_code != 0 || exit.signal != 0 || !exit.not_started.empty())
      ++config_.metrics->replica_failures;
  }
}

}  // namespace gantry::agents
