#include "actors/io_bridge.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <utility>

namespace gantry::actors {

namespace {

// Frames read from one socket before the others get a turn.
constexpr int kReceiveBatch = 256;

void configure_router(zmq::socket_t& socket) {
  socket.set(zmq::sockopt::router_mandatory, 1);
  socket.set(zmq::sockopt::router_handover, 1);
  socket.set(zmq::sockopt::linger, 0);
}

std::string bind_router(zmq::socket_t& socket, const std::string& endpoint, std::string_view flag) {
  configure_router(socket);
  try {
    socket.bind(endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("cannot bind " + std::string(flag) + " " + endpoint + ": " + e.what());
  }
  return socket.get(zmq::sockopt::last_endpoint);
}

}  // namespace

IoBridge::IoBridge(const BridgeEndpoints& endpoints)
    : agents_(context_, zmq::socket_type::router),
      admin_(context_, zmq::socket_type::router),
      wake_receiver_(context_, zmq::socket_type::pair),
      wake_sender_(context_, zmq::socket_type::pair) {
  agents_endpoint_ = bind_router(agents_, endpoints.agents, "--agents");
  admin_endpoint_ = bind_router(admin_, endpoints.admin, "--admin");
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

void IoBridge::run() {
  std::vector<zmq::pollitem_t> items = {
      {agents_.handle(), 0, ZMQ_POLLIN, 0},
      {admin_.handle(), 0, ZMQ_POLLIN, 0},
      {wake_receiver_.handle(), 0, ZMQ_POLLIN, 0},
  };
  while (!stopping_) {
    try {
      zmq::poll(items, std::chrono::milliseconds{-1});
      if (items[0].revents & ZMQ_POLLIN) receive_available(agents_, Channel::kAgents);
      if (items[1].revents & ZMQ_POLLIN) receive_available(admin_, Channel::kAdmin);
      if (items[2].revents & ZMQ_POLLIN) {
        zmq::message_t drained;
        while (wake_receiver_.recv(drained, zmq::recv_flags::dontwait)) {
        }
        flush_outbound();
      }
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      spdlog::error("bridge: {}", e.what());
    }
  }
  flush_outbound();  // replies the actors produced before stop()
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
  while (socket.get(zmq::sockopt::rcvmore)) {
    (void)socket.recv(payload, zmq::recv_flags::none);
  }
  std::string peer = identity.to_string();
  std::string_view frame(static_cast<const char*>(payload.data()), payload.size());
  std::uint64_t seq = 0;
  protocol::DecodeError error;
  std::optional<InboundMessage> message = decode_inbound(channel, peer, frame, seq, error);
  if (!message) {
    spdlog::warn("bridge: {} frame from '{}' refused: {}: {}", channel_name(channel), peer,
                 error.code, error.message);
    send_now(OutboundFrame{channel, std::move(peer), protocol::encode_error(seq, error), 0});
    return true;
  }
  handler_->on_message(std::move(*message));
  return true;
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
