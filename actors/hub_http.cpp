#include "actors/hub_http.hpp"

#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "actors/actor_spawn.hpp"

namespace gantry::actors {

namespace {

// A scraper gives up after its scrape_timeout (10 s by default); a scheduler
// that has not answered in 5 s is stuck or very busy, which is the answer.
constexpr auto kAskTimeout = std::chrono::seconds(5);

// The scheduler actor's answer, or none when it does not answer in time.
template <class Atom>
std::optional<std::string> ask(caf::actor_system& system, const caf::actor& scheduler, Atom atom) {
  caf::scoped_actor self{system};
  std::optional<std::string> answer;
  self->request(scheduler, kAskTimeout, atom)
      .receive([&](std::string& text) { answer = std::move(text); },
               [&](const caf::error& error) {
                 spdlog::warn("http: the scheduler did not answer: {}", system.render(error));
               });
  return answer;
}

}  // namespace

HubHttp::HubHttp(const HubHttpOptions& options, const std::filesystem::path& state_dir,
                 bool insecure, caf::actor_system& system, const caf::actor& scheduler,
                 std::shared_ptr<const HubIoMetrics> io_metrics) {
  support::MetricsEndpointOptions endpoint{options, insecure};
  if (endpoint.http.token_file.empty()) endpoint.http.token_file = state_dir / "metrics.token";
  support::MetricsSources sources;
  sources.metrics = [&system, scheduler, io_metrics] {
    std::optional<std::string> text = ask(system, scheduler, metrics_atom_v);
    if (text && io_metrics) {
      support::PrometheusText more;
      io_metrics->render(more);
      *text += more.text();
    }
    return text;
  };
  sources.not_ready = [&system, scheduler] { return ask(system, scheduler, ready_atom_v); };
  endpoint_ = std::make_unique<support::MetricsEndpoint>(endpoint, std::move(sources));
}

HubHttp::~HubHttp() = default;

std::uint16_t HubHttp::port() const {
  return endpoint_->port();
}

void HubHttp::stop() {
  endpoint_->stop();
}

}  // namespace gantry::actors
