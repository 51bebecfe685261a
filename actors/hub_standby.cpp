#include "actors/hub_standby.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <utility>

#include "actors/hub_identity.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

BridgeEndpoints admin_only(const HubOptions& options) {
  BridgeEndpoints endpoints;
  endpoints.agents = "";  // not bound: agents must not take a standby for their hub
  endpoints.admin = options.admin_endpoint;
  endpoints.limits.max_frame_bytes = options.max_frame_bytes;
  endpoints.limits.max_connections = options.max_connections;
  endpoints.limits.idle_timeout = options.idle_timeout;
  return endpoints;
}

std::string standby_metrics() {
  support::PrometheusText text;
  render_leader_gauge(text, false);
  return text.text();
}

}  // namespace

// An address already bound (the holder on the same machine and addresses)
// is left to it: this hub then stands by without answering there.
HubStandby::HubStandby(const HubOptions& options, BridgeSecurity security) {
  signals_ = std::thread([this] { stop_on_signal(); });
  try {
    bridge_ = std::make_unique<IoBridge>(admin_only(options), std::move(security));
    bridge_->start(*this);
  } catch (const std::exception& e) {
    spdlog::warn("standing by without answering gantryctl: {}", e.what());
  }
  if (options.http.listen.empty()) return;
  support::MetricsEndpointOptions endpoint{options.http, options.insecure};
  if (endpoint.http.token_file.empty())
    endpoint.http.token_file = options.state_dir / "metrics.token";
  support::MetricsSources sources;
  sources.metrics = [] { return std::optional<std::string>(standby_metrics()); };
  sources.not_ready = [this] { return std::optional<std::string>(not_leader_text()); };
  sources.web = [this](const support::HttpRequest&, bool) {
    const protocol::HubInfo holder = leader();
    return support::text_reply(
        503, not_leader_text() +
                 (holder.http.empty() ? "" : "; its web view is at " + holder.http) + "\n");
  };
  try {
    http_ = std::make_unique<support::MetricsEndpoint>(endpoint, std::move(sources));
  } catch (const std::exception& e) {
    spdlog::warn("standing by without serving --http-listen: {}", e.what());
  }
}

HubStandby::~HubStandby() {
  stopping_ = true;
  signals_.join();
  if (http_) http_->stop();
  if (bridge_) bridge_->stop();
}

void HubStandby::stop_on_signal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  const timespec poll{0, 200'000'000};
  while (!stopping_) {
    const int received = sigtimedwait(&signals, nullptr, &poll);
    if (received != SIGINT && received != SIGTERM) continue;
    spdlog::info("received {} while standing by, stopping",
                 received == SIGINT ? "SIGINT" : "SIGTERM");
    spdlog::default_logger()->flush();
    std::_Exit(0);
  }
}

void HubStandby::leader_is(const protocol::HubInfo& leader) {
  const std::lock_guard lock(mutex_);
  leader_ = leader;
}

protocol::HubInfo HubStandby::leader() const {
  const std::lock_guard lock(mutex_);
  return leader_;
}

std::string HubStandby::not_leader_text() const {
  const protocol::HubInfo holder = leader();
  return "not leader: this hub stands by; the job store is held by \"" + holder.name + "\"" +
         (holder.admin.empty() ? "" : ", admin at " + holder.admin);
}

// On the bridge's thread: every request, whatever it asks, is answered here.
void HubStandby::on_message(InboundMessage message) {
  if (message.channel != Channel::kAdmin) return;
  protocol::ErrorReply reply{"not_leader", not_leader_text(), leader().admin};
  bridge_->send(OutboundFrame{Channel::kAdmin, std::move(message.peer),
                              protocol::encode(reply, message.seq)});
}

}  // namespace gantry::actors
