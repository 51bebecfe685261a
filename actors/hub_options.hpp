// gantry-hub's command line.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "actors/hub.hpp"
#include "support/log_format.hpp"

namespace gantry::actors {

// Karmada mode (docs/karmada.md): a gateway to a Karmada control plane and
// the admission webhook that suspends new ResourceBindings for Gantry.
struct KarmadaOptions {
  std::string kubeconfig;      // "" = off; "in-cluster" = the pod's service account
  std::string context;         // kubeconfig context; "" = its current-context
  std::string webhook_listen;  // HOST:PORT; "" = no webhook
  std::string webhook_cert;    // PEM files of the webhook's TLS certificate and key
  std::string webhook_key;
  // PEM CA bundle that signed the API server's client certificate; "" = the
  // webhook asks no client certificate.
  std::string webhook_client_ca;
  // A released part whose member workload Karmada has not applied by then
  // is refused (docs/karmada.md, "Applies that fail").
  std::chrono::milliseconds apply_timeout{120000};
  // A part taken off a member cluster keeps its resources counted there until
  // Karmada shows its pods gone, or this long at most (docs/karmada.md,
  // "Evictions and terminating pods").
  std::chrono::milliseconds termination_grace{300000};
};

struct HubCommandLine {
  HubOptions options;
  KarmadaOptions karmada;
  // --min-runtime as given; unset: 60s in Karmada mode, else 0
  // (hub::SchedulerOptions::min_runtime_ms).
  std::optional<std::chrono::milliseconds> min_runtime;
  std::string log_level = "info";
  support::LogFormat log_format = support::LogFormat::kText;
  // --store-password-file as given; its content is in options.store_access.
  std::string store_password_file;
  bool check = false;  // --check: verify the state directory and exit
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the value it refused.
HubCommandLine parse_hub_command_line(const std::vector<std::string>& args);
std::string hub_usage();

}  // namespace gantry::actors
