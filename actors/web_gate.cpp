#include "actors/web_gate.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "support/rfc3339.hpp"
#include "support/web_login.hpp"

namespace gantry::actors {

namespace {

const AuditedAction kWebLogin{"login", "web", ""};

// A stream of the page that ends, instead of sending, once its session has
// ended or its key lost the right to see the page.
class GuardedStream final : public support::HttpStream {
 public:
  GuardedStream(std::shared_ptr<support::HttpStream> stream, std::function<bool()> allowed)
      : stream_(std::move(stream)), allowed_(std::move(allowed)) {}

  bool send(std::string text) override {
    if (!allowed_()) {
      stream_->close();
      return false;
    }
    return stream_->send(std::move(text));
  }
  void close() override { stream_->close(); }

 private:
  std::shared_ptr<support::HttpStream> stream_;
  std::function<bool()> allowed_;
};

// `cookie` "": none set.
support::HttpReply redirect(std::string location, std::string cookie) {
  support::HttpReply reply = support::text_reply(303, "see " + location);
  reply.headers = {{"Location", std::move(location)}};
  if (!cookie.empty()) reply.headers.emplace_back("Set-Cookie", std::move(cookie));
  return reply;
}

// The page a login lands on: the overview, or the job's page.
std::string landing(const support::HttpRequest& request) {
  const std::string job = support::query_value(request.query, "job");
  return job.empty() ? "/" : "/#/jobs/" + support::percent_encoded(job);
}

bool may_see_the_page(const Principal* key, const std::string& public_key) {
  return key != nullptr && key->public_key == public_key && key->role >= Role::kViewer;
}

support::HttpReply json_reply(const nlohmann::ordered_json& document) {
  support::HttpReply reply{200, "application/json", document.dump(), "", ""};
  reply.headers = {{"Cache-Control", "no-store"}};
  return reply;
}

}  // namespace

WebGate::WebGate(WebGateOptions options, Pages pages)
    : options_(std::move(options)), pages_(std::move(pages)) {}

support::HttpReply WebGate::route(const support::HttpRequest& request, bool bearer) const {
  if (request.path == "/login") return login(request);
  if (request.path == "/logout") return logout(request);
  if (options_.insecure || bearer) {
    return request.path == "/api/session" ? who(request, bearer) : pages_(request);
  }
  std::shared_ptr<const AccessList> access;
  if (session_key(request, access) == nullptr) {
    support::HttpReply refused = support::text_reply(
        401,
        "the web view needs a login: run gantryctl web and open the URL it prints (a program "
        "sends Authorization: Bearer with the token of --metrics-token-file)");
    refused.www_authenticate = "Bearer realm=\"gantry\"";
    return refused;
  }
  if (request.path == "/api/session") return who(request, bearer);
  support::HttpReply reply = pages_(request);
  if (reply.stream) {
    const std::string id(support::cookie_value(request.cookie, support::kSessionCookie));
    reply.stream = [this, id,
                    start = std::move(reply.stream)](std::shared_ptr<support::HttpStream> stream) {
      start(std::make_shared<GuardedStream>(std::move(stream), [this, id] { return allowed(id); }));
    };
  }
  return reply;
}

const Principal* WebGate::session_key(const support::HttpRequest& request,
                                      std::shared_ptr<const AccessList>& access) const {
  const std::string_view id = support::cookie_value(request.cookie, support::kSessionCookie);
  if (id.empty()) return nullptr;
  const std::optional<support::WebSession> session =
      options_.sessions->session(id, options_.now_ms());
  if (!session) return nullptr;
  access = options_.access();
  const Principal* key = access->by_name(session->who.key);
  return may_see_the_page(key, session->who.public_key) ? key : nullptr;
}

bool WebGate::allowed(const std::string& id) const {
  support::HttpRequest request;
  request.cookie = std::string(support::kSessionCookie) + "=" + id;
  std::shared_ptr<const AccessList> access;
  return session_key(request, access) != nullptr;
}

support::HttpReply WebGate::login(const support::HttpRequest& request) const {
  if (request.method != "GET") return support::method_not_allowed(request.method, "/login", "GET");
  if (options_.insecure) return redirect(landing(request), "");
  const std::int64_t now = options_.now_ms();
  const support::WebLogin login =
      options_.sessions->redeem(support::query_value(request.query, "ticket"), now);
  if (!login.session) {
    spdlog::warn("http: a web login was refused: {}", login.refusal);
    return support::text_reply(401, login.refusal);
  }
  const support::WebSession& session = *login.session;
  const std::shared_ptr<const AccessList> access = options_.access();
  const Principal* key = access->by_name(session.who.key);
  if (!may_see_the_page(key, session.who.public_key)) {
    options_.sessions->end(session.id);
    const std::string why =
        "key \"" + session.who.key + "\" is no longer in the hub's access list with a role";
    if (options_.audit) {
      Principal gone;  // no longer listed: its name, no role
      gone.name = session.who.key;
      options_.audit->record(key != nullptr ? *key : gone, kWebLogin, "forbidden", why, now);
    }
    return support::text_reply(403, why);
  }
  const std::string until = support::rfc3339_utc_ms(session.expires_ms);
  if (options_.audit)
    options_.audit->record(*key, kWebLogin, "ok", "a session until " + until, now);
  spdlog::info("http: key \"{}\" ({}) logged in to the web view until {}", key->name,
               role_name(key->role), until);
  const auto max_age =
      std::chrono::duration_cast<std::chrono::seconds>(options_.sessions->limits().session_ttl);
  return redirect(landing(request), support::session_cookie(session.id, max_age, options_.https));
}

support::HttpReply WebGate::logout(const support::HttpRequest& request) const {
  if (request.method != "POST")
    return support::method_not_allowed(request.method, "/logout", "POST");
  const std::string_view id = support::cookie_value(request.cookie, support::kSessionCookie);
  if (!id.empty()) options_.sessions->end(id);
  support::HttpReply reply = support::text_reply(200, "logged out");
  reply.headers = {
      {"Set-Cookie", support::session_cookie("", std::chrono::seconds(0), options_.https)}};
  return reply;
}

// {"via": "login", "key": ..., "role": ..., "expires": ...}, or "token" or
// "insecure" for a page not shown to a key.
support::HttpReply WebGate::who(const support::HttpRequest& request, bool bearer) const {
  if (request.method != "GET")
    return support::method_not_allowed(request.method, "/api/session", "GET");
  if (options_.insecure) return json_reply({{"via", "insecure"}});
  std::shared_ptr<const AccessList> access;
  const Principal* key = session_key(request, access);
  if (key == nullptr) return json_reply({{"via", bearer ? "token" : "none"}});
  const std::string_view id = support::cookie_value(request.cookie, support::kSessionCookie);
  const std::optional<support::WebSession> session =
      options_.sessions->session(id, options_.now_ms());
  return json_reply({{"via", "login"},
                     {"key", key->name},
                     {"role", std::string(role_name(key->role))},
                     {"expires", session ? support::rfc3339_utc_ms(session->expires_ms) : ""}});
}

}  // namespace gantry::actors
