// Request/reply with the hub's admin socket: one DEALER socket, each request
// carries a fresh seq and only the reply echoing it is accepted.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/envelope.hpp"
#include "support/curve_socket.hpp"

namespace gantry::console {

// The hub could not be asked: it did not answer in time, or answered with
// something this gantryctl cannot read. gantryctl exits 2.
class HubUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The hub read the request and refused it with an ErrorReply (a malformed or
// unsupported request, not a business "no"). gantryctl exits 1.
class HubRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HubClient {
 public:
  // Connects lazily (ZeroMQ connects in the background): constructing never
  // blocks, a dead endpoint shows up as a timeout on the first call.
  // With `keys` the socket is a CurveZMQ client of the hub's key; without, it
  // speaks plaintext (a hub started with --insecure).
  // Throws HubUnavailable when `endpoint` is not a valid ZeroMQ endpoint.
  // `endpoint` may list several hubs sharing one store ("a,b,c"). A hub
  // standing by for the store answers "not_leader" with the admin endpoint of
  // the one holding it: the request is sent again, there (one hub given) or
  // to the next of those listed.
  HubClient(std::string endpoint, std::chrono::milliseconds timeout,
            std::optional<support::CurveClientKeys> keys);
  ~HubClient();
  HubClient(const HubClient&) = delete;
  HubClient& operator=(const HubClient&) = delete;

  // Sends `request`, waits for the reply with the same seq and decodes it as
  // Reply. Throws HubUnavailable or HubRefusal.
  template <class Reply, class Request>
  Reply call(const Request& request) {
    const std::uint64_t seq = next_seq_++;
    const protocol::Envelope envelope = exchange(protocol::encode(request, seq), seq);
    protocol::DecodeError error;
    std::optional<Reply> reply = protocol::decode_payload<Reply>(envelope, error);
    if (!reply) throw unreadable_reply(error);
    return std::move(*reply);
  }

  // A request answered by a stream of replies (get -w, logs -f): `open`
  // sends it and returns its seq; `next` waits up to `timeout` for the next
  // reply carrying it. Throw as call() does.
  template <class Request>
  std::uint64_t open(const Request& request) {
    const std::uint64_t seq = next_seq_++;
    send(protocol::encode(request, seq));
    return seq;
  }
  template <class Reply>
  Reply next(std::uint64_t seq, std::chrono::milliseconds timeout) {
    const protocol::Envelope envelope = receive(seq, timeout);
    protocol::DecodeError error;
    std::optional<Reply> reply = protocol::decode_payload<Reply>(envelope, error);
    if (!reply) throw unreadable_reply(error);
    return std::move(*reply);
  }

  const std::string& endpoint() const { return endpoint_; }

 private:
  struct Socket;

  // Sends `frame` and returns the envelope of the reply carrying `seq`;
  // throws HubRefusal for an ErrorReply.
  protocol::Envelope exchange(const std::string& frame, std::uint64_t seq);
  void send(const std::string& frame);
  protocol::Envelope receive(std::uint64_t seq, std::chrono::milliseconds timeout);
  HubUnavailable unreadable_reply(const protocol::DecodeError& error) const;
  // A standby's "not_leader": true once the last request was sent on to the
  // hub it names (or the next listed), false when there is none left to try.
  bool follow_leader(const protocol::ErrorReply& refusal);
  HubUnavailable silent_hub(std::chrono::milliseconds timeout) const;
  void open_socket(const std::vector<std::string>& endpoints);

  std::string endpoint_;
  bool several_hubs_ = false;  // endpoint_ lists several hubs sharing one store
  std::chrono::milliseconds timeout_;
  std::optional<support::CurveClientKeys> keys_;
  std::unique_ptr<Socket> socket_;
  std::string client_public_key_;  // empty in plaintext
  std::uint64_t next_seq_ = 1;     // 0 is what a hub answers when it could not read the seq
  std::vector<std::string> connected_;  // the endpoints the socket connects to
  std::string last_frame_;              // sent again to the leader a standby names
  int followed_ = 0;                    // "not_leader" answers followed for it
};

}  // namespace gantry::console
