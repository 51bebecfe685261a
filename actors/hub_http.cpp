#include "actors/hub_http.hpp"

#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "actors/hub_identity.hpp"
#include "actors/web_json.hpp"

namespace gantry::actors {

namespace {

// A scraper gives up after its scrape_timeout (10 s by default); a scheduler
// that has not answered in 5 s is stuck or very busy, which is the answer.
constexpr auto kAskTimeout = std::chrono::seconds(5);

// The scheduler actor's answer, or none when it does not answer in time.
template <class Answer = std::string, class Question>
std::optional<Answer> ask(caf::actor_system& system, const caf::actor& scheduler,
                          Question question) {
  caf::scoped_actor self{system};
  std::optional<Answer> answer;
  self->request(scheduler, kAskTimeout, std::move(question))
      .receive([&](Answer& given) { answer = std::move(given); },
               [&](const caf::error& error) {
                 spdlog::warn("http: the scheduler did not answer: {}", system.render(error));
               });
  return answer;
}

// The ended jobs the overview lists at most (the latest): a job's own page
// reaches any job describe reaches.
constexpr std::size_t kEndedJobsShown = 200;

// What gantryctl get clusters, queues and jobs would show, as one document.
std::optional<std::string> overview(caf::actor_system& system, const caf::actor& scheduler,
                                    WebHistory& history) {
  auto list = [&](const char* kind) {
    return ask<protocol::ListReply>(system, scheduler, protocol::ListRequest{kind});
  };
  const auto clusters = list("clusters");
  const auto queues = list("queues");
  auto jobs = list("jobs");
  if (!clusters || !queues || !jobs || !history.add_ended(*jobs)) return std::nullopt;
  return overview_json(*clusters, *queues, *jobs);
}

// What gantryctl describe job shows; "" when the hub knows no such job.
std::optional<std::string> job_page(caf::actor_system& system, const caf::actor& scheduler,
                                    WebHistory& history, const std::string& name) {
  auto reply =
      ask<protocol::DescribeReply>(system, scheduler, protocol::DescribeRequest{"job", name});
  if (!reply) return std::nullopt;
  if (!reply->ok) history.describe_ended(name, *reply);
  return reply->ok ? job_page_json(*reply) : std::string();
}

}  // namespace

HubHttp::HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir,
                 HistoryOpener open_history, bool insecure, caf::actor_system& system,
                 const caf::actor& scheduler, std::shared_ptr<const HubIoMetrics> io_metrics,
                 WebAccess web_access)
    : listen_(options.listen), https_(!options.cert_pem_file.empty()) {
  support::MetricsEndpointOptions endpoint{options, insecure};
  if (endpoint.http.token_file.empty()) endpoint.http.token_file = state_dir / "metrics.token";
  support::MetricsSources sources;
  sources.metrics = [&system, scheduler, io_metrics] {
    std::optional<std::string> text = ask(system, scheduler, metrics_atom_v);
    if (text) {
      support::PrometheusText more;
      if (io_metrics) io_metrics->render(more);
      render_leader_gauge(more, true);
      *text += more.text();
    }
    return text;
  };
  sources.not_ready = [&system, scheduler] { return ask(system, scheduler, ready_atom_v); };
  history_ = std::make_unique<WebHistory>(std::move(open_history), kEndedJobsShown);
  web_ = std::make_unique<WebView>(
      WebSources{[&system, scheduler, history = history_.get()] {
                   return overview(system, scheduler, *history);
                 },
                 [&system, scheduler, history = history_.get()](const std::string& name) {
                   return job_page(system, scheduler, *history, name);
                 }});
  WebGateOptions gate{insecure,
                      https_,
                      std::move(web_access.sessions),
                      std::move(web_access.access),
                      std::move(web_access.audit),
                      wall_clock_ms};
  gate_ = std::make_unique<WebGate>(
      std::move(gate),
      [web = web_.get()](const support::HttpRequest& request) { return web->route(request); });
  sources.web = [gate = gate_.get()](const support::HttpRequest& request, bool bearer) {
    return gate->route(request, bearer);
  };
  endpoint_ = std::make_unique<support::MetricsEndpoint>(endpoint, std::move(sources));
}

HubHttp::~HubHttp() = default;

std::uint16_t HubHttp::port() const {
  return endpoint_->port();
}

std::string HubHttp::url(const std::string& host) const {
  const std::string bound = listen_.substr(0, listen_.rfind(':')) + ":" + std::to_string(port());
  return (https_ ? "https://" : "http://") + advertised_endpoint(bound, host);
}

void HubHttp::stop() {
  endpoint_->stop();  // no request reaches the web view after this
  web_->stop();
}

}  // namespace gantry::actors
