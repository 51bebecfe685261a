#include "support/web_sessions.hpp"

#include <openssl/evp.h>

#include <stdexcept>
#include <utility>

#include "support/random_hex.hpp"

namespace gantry::support {

namespace {

// 256 bits: as hard to guess as the keys that ask for them.
constexpr std::size_t kSecretBytes = 32;

// The secret as it is kept: its SHA-256, raw bytes.
std::string digest(std::string_view secret) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(secret.data(), secret.size(), out, &size, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  return std::string(reinterpret_cast<const char*>(out), size);
}

template <class Map>
void erase_expired(Map& entries, std::int64_t now_ms) {
  std::erase_if(entries, [now_ms](const auto& entry) { return entry.second.expires_ms <= now_ms; });
}

}  // namespace

WebSessions::WebSessions(WebSessionLimits limits) : limits_(limits) {}

void WebSessions::drop_expired(std::int64_t now_ms) {
  erase_expired(tickets_, now_ms);
  erase_expired(sessions_, now_ms);
}

WebTicket WebSessions::issue_ticket(WebIdentity who, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  drop_expired(now_ms);
  if (tickets_.size() >= limits_.max_tickets) {
    return {"", 0,
            "too many web login tickets wait to be used (at most " +
                std::to_string(limits_.max_tickets) + ", each for " +
                std::to_string(limits_.ticket_ttl.count() / 1000) + "s); try again later"};
  }
  std::string ticket = random_hex(kSecretBytes);
  const std::int64_t expires_ms = now_ms + limits_.ticket_ttl.count();
  tickets_[digest(ticket)] = Entry{std::move(who), expires_ms};
  return {std::move(ticket), expires_ms, ""};
}

WebLogin WebSessions::redeem(std::string_view ticket, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  drop_expired(now_ms);
  const auto found = tickets_.find(digest(ticket));
  if (found == tickets_.end()) {
    return {std::nullopt,
            "the login ticket is unknown, used or expired (a ticket works once, within " +
                std::to_string(limits_.ticket_ttl.count() / 1000) +
                "s): run gantryctl web for a new one"};
  }
  Entry entry = std::move(found->second);
  tickets_.erase(found);  // once, whatever follows
  if (sessions_.size() >= limits_.max_sessions) {
    return {std::nullopt, "too many web sessions are open (at most " +
                              std::to_string(limits_.max_sessions) + "); try again later"};
  }
  WebSession session{random_hex(kSecretBytes), std::move(entry.who),
                     now_ms + limits_.session_ttl.count()};
  sessions_[digest(session.id)] = Entry{session.who, session.expires_ms};
  return {std::move(session), ""};
}

std::optional<WebSession> WebSessions::session(std::string_view id, std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  const auto found = sessions_.find(digest(id));
  if (found == sessions_.end()) return std::nullopt;
  if (found->second.expires_ms <= now_ms) {
    sessions_.erase(found);
    return std::nullopt;
  }
  return WebSession{"", found->second.who, found->second.expires_ms};
}

void WebSessions::end(std::string_view id) {
  const std::lock_guard lock(mutex_);
  sessions_.erase(digest(id));
}

std::size_t WebSessions::live_sessions(std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  erase_expired(sessions_, now_ms);
  return sessions_.size();
}

}  // namespace gantry::support
