// The hub's answer to `gantryctl web` (protocol::WebLoginRequest): a one-time
// ticket for the key that asked (support/web_sessions.hpp), in the URL a
// browser opens on the hub's HTTP address (actors/web_gate.hpp redeems it).
// Answered on the I/O bridge's thread: it asks no actor.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actors/access_list.hpp"
#include "actors/outbound.hpp"
#include "protocol/messages.hpp"
#include "support/web_sessions.hpp"

namespace gantry::actors {

struct WebLoginDeskOptions {
  // "http(s)://HOST:PORT", as other machines reach the hub's HTTP endpoint;
  // "": the hub serves no web view.
  std::string base_url;
  bool insecure = false;  // the page needs no login
  std::shared_ptr<support::WebSessions> sessions;
  std::function<std::shared_ptr<const AccessList>()> access;  // the one in force now
  std::function<std::int64_t()> now_ms;                       // wall clock, milliseconds
};

class WebLoginDesk {
 public:
  WebLoginDesk(WebLoginDeskOptions options, OutboundSink& sink);

  // Answers `request`, sent by the admin peer `peer` with key `key`.
  void answer(const std::string& peer, std::uint64_t seq, const std::string& key,
              const protocol::WebLoginRequest& request);
  protocol::WebLoginReply reply_to(const std::string& key,
                                   const protocol::WebLoginRequest& request);

 private:
  WebLoginDeskOptions options_;
  OutboundSink& sink_;
};

}  // namespace gantry::actors
