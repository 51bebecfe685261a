#include "actors/web_login_desk.hpp"

#include <utility>

#include "protocol/envelope.hpp"
#include "support/web_login.hpp"

namespace gantry::actors {

namespace {

// A job name the page may open (a Kubernetes object name is at most 253).
constexpr std::size_t kMaxJobName = 253;

}  // namespace

WebLoginDesk::WebLoginDesk(WebLoginDeskOptions options, OutboundSink& sink)
    : options_(std::move(options)), sink_(sink) {}

protocol::WebLoginReply WebLoginDesk::reply_to(const std::string& key_name,
                                               const protocol::WebLoginRequest& request) {
  protocol::WebLoginReply reply;
  if (options_.base_url.empty()) {
    reply.error = "this hub serves no web view: start it with --http-listen HOST:PORT";
    return reply;
  }
  if (request.job.size() > kMaxJobName) {
    reply.error = "WebLoginRequest.job: " + std::to_string(request.job.size()) +
                  " bytes; a job name is at most " + std::to_string(kMaxJobName);
    return reply;
  }
  const std::string job_query =
      request.job.empty() ? "" : "job=" + support::percent_encoded(request.job);
  reply.key = key_name;
  if (options_.insecure) {  // nobody to log in: the page itself
    reply.ok = true;
    reply.url = options_.base_url +
                (request.job.empty() ? "/" : "/#/jobs/" + support::percent_encoded(request.job));
    return reply;
  }
  const std::shared_ptr<const AccessList> access = options_.access();
  const Principal* key = access->by_name(key_name);
  if (key == nullptr) {
    reply.error = "key \"" + key_name + "\" is no longer in the hub's access list";
    return reply;
  }
  const std::int64_t now = options_.now_ms();
  support::WebTicket ticket = options_.sessions->issue_ticket({key->name, key->public_key}, now);
  if (!ticket.refusal.empty()) {
    reply.error = std::move(ticket.refusal);
    return reply;
  }
  reply.ok = true;
  reply.url = options_.base_url + "/login?ticket=" + ticket.ticket +
              (job_query.empty() ? "" : "&" + job_query);
  reply.valid_ms = ticket.expires_ms - now;
  return reply;
}

void WebLoginDesk::answer(const std::string& peer, std::uint64_t seq, const std::string& key,
                          const protocol::WebLoginRequest& request) {
  const protocol::WebLoginReply reply = reply_to(key, request);
  OutboundFrame frame{Channel::kAdmin, peer, protocol::encode(reply, seq), 0};
  frame.answer_seq = seq;
  frame.answer_result = reply.ok ? "ok" : "refused";
  sink_.send(std::move(frame));
}

}  // namespace gantry::actors
