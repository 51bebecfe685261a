#include "actors/karmada_mode.hpp"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>

#include "karmada/gateway.hpp"
#include "karmada/webhook_server.hpp"
#include "kube/cluster_access.hpp"

namespace gantry::actors {

namespace {

kube::ClusterAccess karmada_access(const KarmadaOptions& options) {
  try {
    if (options.kubeconfig == "in-cluster") return kube::in_cluster_access();
    return kube::load_kubeconfig(options.kubeconfig, options.context);
  } catch (const std::exception& unusable) {
    throw std::runtime_error("--karmada " + options.kubeconfig + ": " + unusable.what());
  }
}

karmada::WebhookOptions webhook_options(const KarmadaOptions& options) {
  karmada::WebhookOptions webhook;
  webhook.listen = options.webhook_listen;
  webhook.cert_pem_file = options.webhook_cert;
  webhook.key_pem_file = options.webhook_key;
  webhook.client_ca_pem_file = options.webhook_client_ca;
  return webhook;
}

// The gateway runs in the hub's process: it reaches the hub's sockets on
// loopback whatever interface they were bound to.
std::string local_endpoint(std::string bound) {
  for (const std::string any : {"tcp://*:", "tcp://0.0.0.0:"})
    if (bound.rfind(any, 0) == 0) return "tcp://127.0.0.1:" + bound.substr(any.size());
  return bound;
}

}  // namespace

struct KarmadaMode::Running {
  std::optional<karmada::WebhookServer> webhook;
  std::optional<karmada::Gateway> gateway;
};

KarmadaMode::KarmadaMode(const KarmadaOptions& options, const Hub& hub,
                         std::chrono::milliseconds heartbeat_interval,
                         std::optional<support::CurveClientKeys> hub_keys)
    : running_(std::make_unique<Running>()) {
  if (!options.webhook_listen.empty()) {
    running_->webhook.emplace(webhook_options(options));
    running_->webhook->start();
    spdlog::info("admission webhook on {} (port {})", options.webhook_listen,
                 running_->webhook->port());
  }
  if (!options.kubeconfig.empty()) {
    karmada::GatewayOptions gateway;
    gateway.access = karmada_access(options);
    gateway.agents_endpoint = local_endpoint(hub.agents_endpoint());
    gateway.admin_endpoint = local_endpoint(hub.admin_endpoint());
    gateway.apply_timeout_ms = options.apply_timeout.count();
    gateway.termination_grace_ms = options.termination_grace.count();
    gateway.timing.heartbeat_ms = static_cast<std::int32_t>(heartbeat_interval.count());
    gateway.hub_keys = std::move(hub_keys);
    running_->gateway.emplace(std::move(gateway));
    running_->gateway->start();
  }
}

KarmadaMode::~KarmadaMode() {
  stop();
}

void KarmadaMode::stop() {
  if (running_->gateway) running_->gateway->stop();
  if (running_->webhook) running_->webhook->stop();
}

}  // namespace gantry::actors
