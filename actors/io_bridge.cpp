#include "actors/io_bridge.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "actors/admin_roles.hpp"
#include "actors/zap_gate.hpp"
#include "support/curve_socket.hpp"

namespace gantry::actors {

namespace {

// Frames read from one socket before the others get a turn.
constexpr int kReceiveBatch = 256;

// Routing id, an optional empty delimiter (a REQ peer), the envelope.
constexpr int kMostParts = 3;

// No handover: a second connection presenting a routing id already in use
// is not heard, so it cannot take over (or cut off) the session of the peer
// that has it. Agents pick a fresh routing id for every connection.
void configure_router(zmq::socket_t& socket) {
  socket.set(zmq::sockopt::router_mandatory, 1);
  socket.set(zmq::sockopt::router_handover, 0);
  socket.set(zmq::sockopt::linger, 0);
}

void make_secure(zmq::socket_t& socket, const BridgeSecurity& security, std::string_view domain) {
  if (security.insecure) return;
  support::make_curve_server(socket, security.hub_keys);
  socket.set(zmq::sockopt::zap_domain, std::string(domain));
}

std::string bind_router(zmq::socket_t& socket, const std::string& endpoint, std::string_view flag,
                        const SocketLimits& limits) {
  configure_router(socket);
  apply_socket_limits(socket, limits);  // before bind: the listener copies them
  try {
    socket.bind(endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("cannot bind " + std::string(flag) + " " + endpoint + ": " + e.what());
  }
  return socket.get(zmq::sockopt::last_endpoint);
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A key name is what the ZAP answer said: libzmq stamps it on every frame.
std::string key_name_of(zmq::message_t& payload) {
  const char* user_id = zmq_msg_gets(payload.handle(), "User-Id");
  return user_id == nullptr ? std::string() : std::string(user_id);
}

Sender sender_from(const Principal& principal) {
  return Sender{principal.name, principal.role, principal.queues};
}

}  // namespace

namespace {

// "SubmitJob", "List", "Describe" ...: the request's message type, less "Request".
std::string_view command_of(const InboundBody& body) {
  return std::visit(
      [](const auto& message) {
        std::string_view name = protocol::message_type_name(
            protocol::MessageTypeOf<std::decay_t<decltype(message)>>::value);
        if (name.size() > 7 && name.substr(name.size() - 7) == "Request") name.remove_suffix(7);
        return name;
      },
      body);
}

}  // namespace

IoBridge::IoBridge(const BridgeEndpoints& endpoints, BridgeSecurity security,
                   std::shared_ptr<HubIoMetrics> metrics)
    : agents_(context_, zmq::socket_type::router),
      admin_(context_, zmq::socket_type::router),
      wake_receiver_(context_, zmq::socket_type::pair),
      wake_sender_(context_, zmq::socket_type::pair),
      limits_(endpoints.limits),
      insecure_(security.insecure),
      access_(std::move(security.access)),
      audit_(std::move(security.audit)),
      metrics_(std::move(metrics)) {
  anonymous_.name = "anonymous";
  anonymous_.clusters = {"*"};
  anonymous_.role = Role::kAdmin;
  if (!access_) access_ = std::make_shared<AccessList>();
  // The handler is bound before any socket can take a handshake.
  if (!insecure_) zap_ = support::bind_zap_handler(context_);
  make_secure(agents_, security, kAgentsZapDomain);
  make_secure(admin_, security, kAdminZapDomain);
  // Each guard watches its socket from before it can accept a connection.
  agents_guard_.emplace(context_, agents_, "agents", limits_);
  admin_guard_.emplace(context_, admin_, "admin", limits_);
  if (!endpoints.agents.empty())
    agents_endpoint_ = bind_router(agents_, endpoints.agents, "--agents", limits_);
  admin_endpoint_ = bind_router(admin_, endpoints.admin, "--admin", limits_);
  const std::string wake_endpoint =
      "inproc://gantry-bridge-wake-" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  wake_receiver_.set(zmq::sockopt::linger, 0);
  wake_sender_.set(zmq::sockopt::linger, 0);
  wake_receiver_.bind(wake_endpoint);
  wake_sender_.connect(wake_endpoint);
}

IoBridge::~IoBridge() {
  stop();
}

void IoBridge::start(InboundHandler& handler) {
  handler_ = &handler;
  thread_ = std::thread([this] { run(); });
}

void IoBridge::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
    wake();
  }
  thread_.join();
}

void IoBridge::send(OutboundFrame frame) {
  std::lock_guard lock(queue_mutex_);
  const bool was_empty = queued_.empty();
  queued_.push_back(std::move(frame));
  if (was_empty) wake();
}

void IoBridge::send_batch(std::vector<OutboundFrame> frames) {
  if (frames.empty()) return;
  std::lock_guard lock(queue_mutex_);
  const bool was_empty = queued_.empty();
  if (was_empty) {
    queued_.swap(frames);
  } else {
    for (auto& frame : frames) queued_.push_back(std::move(frame));
  }
  if (was_empty) wake();
}

// Called with queue_mutex_ held: one wake-up per empty ->
// non-empty transition is enough, the I/O thread drains everything it finds.
void IoBridge::wake() {
  try {
    (void)wake_sender_.send(zmq::const_buffer{}, zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    spdlog::error("bridge: cannot wake the I/O thread: {}", e.what());
  }
}

// Monitors first, then ZAP, then the sockets: a connection over the limit
// is shut down while its handshake still waits for ZAP, so its client keeps
// its request and sends it again on the connection it makes next
// (actors/connection_guard.hpp).
void IoBridge::run() {
  std::vector<zmq::pollitem_t> items = {
      {agents_guard_->monitor_socket().handle(), 0, ZMQ_POLLIN, 0},
      {admin_guard_->monitor_socket().handle(), 0, ZMQ_POLLIN, 0},
      // No ZAP socket when insecure: fd -1 makes poll() skip the item (fd 0
      // would be stdin, whose hang-up would wake the loop for ever).
      {insecure_ ? nullptr : zap_.handle(), insecure_ ? -1 : 0,
       static_cast<short>(insecure_ ? 0 : ZMQ_POLLIN), 0},
      {agents_.handle(), 0, ZMQ_POLLIN, 0},
      {admin_.handle(), 0, ZMQ_POLLIN, 0},
      {wake_receiver_.handle(), 0, ZMQ_POLLIN, 0},
  };
  while (!stopping_) {
    try {
      const auto now = Clock::now();
      zmq::poll(items, std::min(agents_guard_->poll_timeout(now), admin_guard_->poll_timeout(now)));
      const auto polled = Clock::now();
      if (items[0].revents & ZMQ_POLLIN) agents_guard_->on_monitor_event(polled);
      if (items[1].revents & ZMQ_POLLIN) admin_guard_->on_monitor_event(polled);
      if (items[2].revents & ZMQ_POLLIN) serve_zap_requests();
      if (items[3].revents & ZMQ_POLLIN) receive_available(agents_, Channel::kAgents);
      if (items[4].revents & ZMQ_POLLIN) receive_available(admin_, Channel::kAdmin);
      if (items[5].revents & ZMQ_POLLIN) {
        zmq::message_t drained;
        while (wake_receiver_.recv(drained, zmq::recv_flags::dontwait)) {
        }
        flush_outbound();
      }
      sweep_connections(Clock::now());
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      spdlog::error("bridge: {}", e.what());
    }
  }
  flush_outbound();  // replies the actors produced before stop()
}

// Idle connections closed; memory the closed ones held given back.
void IoBridge::sweep_connections(Clock::time_point now) {
  agents_guard_->expire_idle(now);
  admin_guard_->expire_idle(now);
  memory_release_.on_sweep(
      agents_guard_->connection_count() + admin_guard_->connection_count(), now);
}

void IoBridge::receive_available(zmq::socket_t& socket, Channel channel) {
  for (int i = 0; i < kReceiveBatch; ++i) {
    if (!receive_one(socket, channel)) return;
  }
}

// A ROUTER frame from a DEALER peer is [routing id, payload]; anything between
// (a REQ peer's empty delimiter) is skipped and the last part is the payload.
bool IoBridge::receive_one(zmq::socket_t& socket, Channel channel) {
  zmq::message_t identity;
  if (!socket.recv(identity, zmq::recv_flags::dontwait)) return false;
  zmq::message_t payload;
  int parts = 1;
  while (socket.get(zmq::sockopt::rcvmore)) {
    (void)socket.recv(payload, zmq::recv_flags::none);
    ++parts;
  }
  guard_of(channel).note_frame(payload, Clock::now());
  std::string peer = identity.to_string();
  if (parts > kMostParts) {
    refuse(channel, std::move(peer), 0, "bad_frame",
           "a message of " + std::to_string(parts - 1) + " parts: at most " +
               std::to_string(kMostParts - 1) + " (an envelope, after an empty delimiter)");
    return true;
  }
  if (std::optional<std::string> too_big = oversized_frame_error(payload.size(), limits_)) {
    refuse(channel, std::move(peer), 0, "frame_too_large", std::move(*too_big));
    return true;
  }
  std::string_view frame(static_cast<const char*>(payload.data()), payload.size());
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  std::optional<InboundMessage> message = decode_inbound(channel, peer, frame, seq, error);
  if (!message) {
    refuse(channel, std::move(peer), seq, std::move(error.code), std::move(error.message));
    return true;
  }
  const std::shared_ptr<const AccessList> access = current_access();
  const std::string key = key_name_of(payload);
  const Principal* sender = insecure_ ? &anonymous_ : access->by_name(key);
  if (sender == nullptr) {
    refuse(channel, std::move(peer), seq, "unauthorized",
           "key \"" + key + "\" is no longer in the hub's access list");
    return true;
  }
  if (std::string why = refusal(channel, *sender, message->body); !why.empty()) {
    const std::optional<AuditedAction> action = audited_action(message->body);
    if (audit_ && action) audit_->refused(*sender, *action, why, now_ms());
    if (metrics_ && channel == Channel::kAdmin)
      metrics_->refused(command_of(message->body), "forbidden");
    refuse(channel, std::move(peer), seq, "forbidden", std::move(why));
    return true;
  }
  if (audit_ && channel == Channel::kAdmin) {
    if (std::optional<AuditedAction> action = audited_action(message->body))
      audit_->requested(message->peer, seq, *sender, std::move(*action));
  }
  if (metrics_ && channel == Channel::kAdmin)
    metrics_->requested(message->peer, seq, command_of(message->body), HubIoMetrics::Clock::now());
  message->sender = sender_from(*sender);
  handler_->on_message(std::move(*message));
  return true;
}

void IoBridge::refuse(Channel channel, std::string peer, std::uint64_t seq, std::string code,
                      std::string message) {
  spdlog::warn("bridge: {} frame from '{}' refused: {}: {}", channel_name(channel), peer, code,
               message);
  protocol::DecodeError error{std::move(code), std::move(message), seq};
  send_now(OutboundFrame{channel, std::move(peer), protocol::encode_error(seq, error), 0});
}

std::shared_ptr<const AccessList> IoBridge::current_access() {
  std::lock_guard lock(access_mutex_);
  return access_;
}

void IoBridge::set_access(std::shared_ptr<const AccessList> access) {
  std::lock_guard lock(access_mutex_);
  access_ = std::move(access);
}

// The waiting ZAP requests, answered at once: libzmq holds each client's
// handshake until it has the answer.
void IoBridge::serve_zap_requests() {
  const std::shared_ptr<const AccessList> access = current_access();
  const auto decide = [&](const support::ZapRequest& request) {
    support::ZapVerdict verdict = decide_zap(request, *access);
    if (!verdict.allowed) {
      if (const std::optional<std::uint64_t> left_out = refused_log_.admit(Clock::now())) {
        spdlog::warn("bridge: {} client at {} with key {} refused: {} ({} more refused unlogged)",
                     request.domain, request.address, request.curve_public_key, verdict.reason,
                     *left_out);
      }
    }
    return verdict;
  };
  while (support::answer_one_zap_request(zap_, decide)) {
  }
}

ConnectionGuard& IoBridge::guard_of(Channel channel) {
  return channel == Channel::kAgents ? *agents_guard_ : *admin_guard_;
}

void IoBridge::flush_outbound() {
  {
    std::lock_guard lock(queue_mutex_);
    sending_.swap(queued_);
  }
  for (const OutboundFrame& frame : sending_) send_now(frame);
  sending_.clear();
}

void IoBridge::send_now(const OutboundFrame& frame) {
  zmq::socket_t& socket = socket_for(frame.channel);
  if (audit_ && frame.channel == Channel::kAdmin) audit_->answered(frame.peer, frame.frame, now_ms());
  if (metrics_ && !frame.answer_result.empty())
    metrics_->answered(frame.peer, frame.answer_seq, frame.answer_result,
                       HubIoMetrics::Clock::now());
  std::string_view why;
  try {
    if (!socket.send(zmq::buffer(frame.peer),
                     zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      why = "peer's queue is full";
    } else if (!socket.send(zmq::buffer(frame.frame), zmq::send_flags::dontwait)) {
      why = "peer's queue is full";
    }
  } catch (const zmq::error_t& e) {
    why = e.num() == EHOSTUNREACH ? "peer is not connected" : "send failed";
    if (e.num() != EHOSTUNREACH) spdlog::warn("bridge: send to '{}': {}", frame.peer, e.what());
  }
  if (!why.empty()) handler_->on_undeliverable(frame, why);
}

zmq::socket_t& IoBridge::socket_for(Channel channel) {
  return channel == Channel::kAgents ? agents_ : admin_;
}

}  // namespace gantry::actors
