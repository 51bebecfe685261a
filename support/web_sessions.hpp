// The web view's logins (docs/web.md, "Who may see it"): `gantryctl web` asks
// the hub over its admin socket for a ticket, so the ticket is for the key
// that asked; a browser redeems it once, at /login, for a session that a
// cookie carries. Tickets live a minute, sessions twelve hours. Both are kept
// only as SHA-256 digests, so the map lookups reveal nothing about a secret
// through their timing, and a memory dump holds none. Time is passed in.
// Thread-safe: the admin socket's thread issues, the HTTP thread redeems.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::support {

struct WebSessionLimits {
  std::chrono::milliseconds ticket_ttl = std::chrono::minutes(1);
  std::chrono::milliseconds session_ttl = std::chrono::hours(12);
  std::size_t max_tickets = 64;     // unredeemed at once
  std::size_t max_sessions = 1024;  // live at once
};

// Whom a login is for: the key's name in the access list and its public key,
// so that a name given to a new key does not inherit the old key's sessions.
struct WebIdentity {
  std::string key;
  std::string public_key;
};

struct WebSession {
  std::string id;  // the cookie's value; only redeem() returns it
  WebIdentity who;
  std::int64_t expires_ms = 0;
};

// A ticket issued, or why not ("" when issued).
struct WebTicket {
  std::string ticket;
  std::int64_t expires_ms = 0;
  std::string refusal;
};

// A ticket redeemed, or why not.
struct WebLogin {
  std::optional<WebSession> session;
  std::string refusal;
};

class WebSessions {
 public:
  explicit WebSessions(WebSessionLimits limits = {});
  WebSessions(const WebSessions&) = delete;
  WebSessions& operator=(const WebSessions&) = delete;

  // A ticket for `who`, valid until now + ticket_ttl; refused (naming the
  // limit) while max_tickets unexpired ones wait.
  WebTicket issue_ticket(WebIdentity who, std::int64_t now_ms);
  // The session the ticket opens. A ticket works once: used, expired or
  // unknown, it is refused; refused too while max_sessions are live.
  WebLogin redeem(std::string_view ticket, std::int64_t now_ms);
  // The live session whose id is `id`, nullopt when unknown or expired.
  std::optional<WebSession> session(std::string_view id, std::int64_t now_ms);
  // Logs the session out. Unknown ids are ignored.
  void end(std::string_view id);

  const WebSessionLimits& limits() const { return limits_; }
  std::size_t live_sessions(std::int64_t now_ms);

 private:
  struct Entry {
    WebIdentity who;
    std::int64_t expires_ms = 0;
  };
  void drop_expired(std::int64_t now_ms);

  const WebSessionLimits limits_;
  std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> tickets_;   // by digest
  std::map<std::string, Entry, std::less<>> sessions_;  // by digest
};

}  // namespace gantry::support
