#include "console/hub_client.hpp"

#include <algorithm>
#include <cstring>
#include <vector>
#include <zmq.hpp>

#include "hub/duration.hpp"
#include "support/comma_list.hpp"

namespace gantry::console {

struct HubClient::Socket {
  zmq::context_t context{1};
  zmq::socket_t dealer{context, zmq::socket_type::dealer};
  // The dealer's connection events (libzmq's socket monitor): a hub that
  // refuses our key is reported at once, not as a timeout; an address where
  // nothing listens (connection refused) is named when the wait ends.
  zmq::socket_t connection_events{context, zmq::socket_type::pair};
  bool monitored = false;
  bool ever_connected = false;
  bool refused_connection = false;  // connects failed, and none ever succeeded
};

HubClient::HubClient(std::string endpoint, std::chrono::milliseconds timeout,
                     std::optional<support::CurveClientKeys> keys)
    : endpoint_(std::move(endpoint)), timeout_(timeout), keys_(std::move(keys)) {
  if (keys_) client_public_key_ = keys_->own.public_key;
  open_socket(support::comma_list(endpoint_));
}

// A new socket (and context) for `endpoints`: following a leader starts
// afresh, since a disconnected pipe may still take a request and lose it.
void HubClient::open_socket(const std::vector<std::string>& endpoints) {
  socket_ = std::make_unique<Socket>();
  // linger 0: an unanswered request must not keep gantryctl from exiting.
  socket_->dealer.set(zmq::sockopt::linger, 0);
  if (keys_) support::make_curve_client(socket_->dealer, *keys_);
  const char* monitor = "inproc://gantryctl-handshake";
  if (zmq_socket_monitor(
          socket_->dealer.handle(), monitor,
          ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_CONNECT_RETRIED | ZMQ_EVENT_CONNECTED) == 0) {
    socket_->connection_events.set(zmq::sockopt::linger, 0);
    socket_->connection_events.connect(monitor);
    socket_->monitored = true;
  }
  connected_ = endpoints;
  several_hubs_ = endpoints.size() > 1;
  if (several_hubs_) {
    // Several hubs on one store: a request waits for a connection that
    // completed (immediate) and goes over one of those; a standby answers it
    // with the leader, followed then on a socket of its own.
    socket_->dealer.set(zmq::sockopt::immediate, 1);
    socket_->dealer.set(zmq::sockopt::sndtimeo, static_cast<int>(timeout_.count()));
  }
  for (const std::string& one : endpoints) {
    try {
      socket_->dealer.connect(one);
    } catch (const zmq::error_t& e) {
      throw HubUnavailable("cannot connect to hub at " + one + ": " + e.what());
    }
  }
}

HubClient::~HubClient() = default;

namespace {

// The last part of a multipart message: the frame, whatever routing parts a
// proxy in between may have left in front of it.
std::string receive_frame(zmq::socket_t& socket) {
  zmq::message_t part;
  std::string frame;
  do {
    (void)socket.recv(part, zmq::recv_flags::none);
    frame = part.to_string();
  } while (part.more());
  return frame;
}

// A monitor event: its id and value (HANDSHAKE_FAILED_AUTH's value is the
// ZAP status code, 400: key not allowed).
struct MonitorEvent {
  std::uint16_t id = 0;
  std::uint32_t value = 0;
};

MonitorEvent next_event(zmq::socket_t& events) {
  zmq::message_t event;
  zmq::message_t endpoint;
  (void)events.recv(event, zmq::recv_flags::none);
  (void)events.recv(endpoint, zmq::recv_flags::none);
  MonitorEvent read;
  if (event.size() >= 6) {
    std::memcpy(&read.id, event.data<char>(), sizeof read.id);
    std::memcpy(&read.value, event.data<char>() + 2, sizeof read.value);
  }
  return read;
}

std::string describe_error_reply(const protocol::Envelope& envelope) {
  protocol::DecodeError error;
  const auto reply = protocol::decode_payload<protocol::ErrorReply>(envelope, error);
  if (!reply) return "an unreadable error (" + error.message + ")";
  return reply->code + ": " + reply->message;
}

}  // namespace

protocol::Envelope HubClient::exchange(const std::string& frame, std::uint64_t seq) {
  send(frame);
  return receive(seq, timeout_);
}

// One hub: queued at once, before the connection completes. Several: the
// send waits (up to the timeout) for one of them to be connected.
void HubClient::send(const std::string& frame) {
  last_frame_ = frame;
  followed_ = 0;
  if (socket_->dealer.send(zmq::buffer(frame),
                           several_hubs_ ? zmq::send_flags::none : zmq::send_flags::dontwait))
    return;
  if (several_hubs_)
    throw HubUnavailable("none of the hubs at " + endpoint_ + " answered within " +
                         hub::format_duration(timeout_.count()));
  throw HubUnavailable("cannot queue a request for hub at " + endpoint_);
}

protocol::Envelope HubClient::receive(std::uint64_t seq, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    zmq::socket_t& dealer = socket_->dealer;  // a new one once a leader is followed
    std::vector<zmq::pollitem_t> items{{dealer.handle(), 0, ZMQ_POLLIN, 0}};
    if (socket_->monitored) {
      items.push_back({socket_->connection_events.handle(), 0, ZMQ_POLLIN, 0});
    }
    if (left.count() <= 0 || zmq::poll(items, left) == 0) throw silent_hub(timeout);
    if (items.size() > 1 && (items[1].revents & ZMQ_POLLIN) != 0) {
      const MonitorEvent event = next_event(socket_->connection_events);
      // libzmq retries after any lost connection too (a hub that dropped a
      // handshake): only a socket that never connected found nobody there.
      if (event.id == ZMQ_EVENT_CONNECTED) socket_->ever_connected = true;
      if (event.id == ZMQ_EVENT_CONNECT_RETRIED && !socket_->ever_connected)
        socket_->refused_connection = true;
      if (event.id != ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) continue;
      throw HubUnavailable("hub at " + endpoint_ + " refused this client's key " +
                           client_public_key_ + " (ZAP " + std::to_string(event.value) +
                           "): ask the hub's admin to allow it in the hub's access.yaml");
    }
    if ((items[0].revents & ZMQ_POLLIN) == 0) continue;
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(receive_frame(dealer), error);
    if (!envelope) throw unreadable_reply(error);
    const bool is_error = envelope->type == protocol::MessageType::kErrorReply;
    // seq 0 on an ErrorReply: the hub could not read our header, so could not echo
    // the seq; this socket has only our request outstanding, so it is the answer.
    if (envelope->seq != seq && !(is_error && envelope->seq == 0)) continue;  // stale reply
    if (is_error) {
      const auto refusal = protocol::decode_payload<protocol::ErrorReply>(*envelope, error);
      if (refusal && refusal->code == "not_leader" && follow_leader(*refusal)) continue;
      throw HubRefusal("hub at " + endpoint_ +
                       " refused the request: " + describe_error_reply(*envelope));
    }
    return *envelope;
  }
}

bool HubClient::follow_leader(const protocol::ErrorReply& refusal) {
  // Each listed hub and the named one once: past that, hubs disagree about
  // who leads (a handover in progress), and the refusal says so.
  if (followed_ > static_cast<int>(connected_.size())) return false;
  if (!refusal.leader.empty()) {
    try {
      open_socket({refusal.leader});  // only the leader from now on
    } catch (const HubUnavailable&) {
      return false;  // not an endpoint this client can connect to
    }
    endpoint_ = refusal.leader;
  } else if (!several_hubs_) {
    return false;  // the one hub it knows stands by and names no other
  }
  const std::string frame = last_frame_;
  const int followed = followed_;
  send(frame);  // several hubs and no leader named: the socket takes turns
  followed_ = followed + 1;
  return true;
}

// No answer within `timeout`: why, as far as gantryctl can tell. A hub
// gantryctl never reached (its connects were refused or failed, as kubectl's
// "the connection to the server ... was refused") is told apart from one that
// took the connection and said nothing.
HubUnavailable HubClient::silent_hub(std::chrono::milliseconds timeout) const {
  std::string why =
      "hub at " + endpoint_ + " did not answer within " + hub::format_duration(timeout.count());
  if (socket_->refused_connection)
    return HubUnavailable(why +
                          ": could not connect (nothing listens there, or it cannot be "
                          "reached); is the hub running, and is --hub (or GANTRY_HUB) right?");
  if (!client_public_key_.empty())
    why +=
        " (if it is up: is the hub's public key right, and is the hub encrypted, "
        "not --insecure?)";
  return HubUnavailable(why);
}

HubUnavailable HubClient::unreadable_reply(const protocol::DecodeError& error) const {
  return HubUnavailable("hub at " + endpoint_ + " sent a reply gantryctl cannot read (" +
                        error.code + ": " + error.message +
                        "); are hub and gantryctl the same version?");
}

}  // namespace gantry::console
