// Who may open the hub's web view (docs/web.md, "Who may see it"), in front
// of actors/web_view.hpp on the HTTP endpoint:
//   - a browser, with the session cookie that /login?ticket=T set for a
//     ticket `gantryctl web` asked for, while the key it was for is still in
//     access.yaml with a role (checked on every request, and before every
//     write to an open stream: a key taken out ends its streams);
//   - a program, with the scrape token as a bearer token;
//   - anyone, with --insecure.
//   GET  /login?ticket=T[&job=NAME]  the cookie, then 303 to the page
//   POST /logout                     ends the session, clears the cookie
//   GET  /api/session                who the page is shown to
// A login is one line in the audit log ("login web"). Plain C++: the clock
// and the access list are handed in.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "actors/access_list.hpp"
#include "actors/audit_log.hpp"
#include "support/http_server.hpp"
#include "support/web_sessions.hpp"

namespace gantry::actors {

struct WebGateOptions {
  bool insecure = false;  // every request is let in
  bool https = false;     // the cookie is Secure
  std::shared_ptr<support::WebSessions> sessions;
  std::function<std::shared_ptr<const AccessList>()> access;  // the one in force now
  std::shared_ptr<AuditLog> audit;                            // nullptr: none
  std::function<std::int64_t()> now_ms;                       // wall clock, milliseconds
};

class WebGate {
 public:
  using Pages = std::function<support::HttpReply(const support::HttpRequest&)>;
  WebGate(WebGateOptions options, Pages pages);

  // `bearer`: the request carries the scrape token (support/metrics_endpoint.hpp).
  support::HttpReply route(const support::HttpRequest& request, bool bearer) const;

 private:
  support::HttpReply login(const support::HttpRequest& request) const;
  support::HttpReply logout(const support::HttpRequest& request) const;
  support::HttpReply who(const support::HttpRequest& request, bool bearer) const;
  // The key the request's session is for, while it may still see the page.
  const Principal* session_key(const support::HttpRequest& request,
                               std::shared_ptr<const AccessList>& access) const;
  // Whether the session `id` is live and its key still allowed.
  bool allowed(const std::string& id) const;

  WebGateOptions options_;
  Pages pages_;
};

}  // namespace gantry::actors
