// A kubeconfig user's `exec` credential plugin, as client-go runs it (its
// ExecCredential protocol, client.authentication.k8s.io v1 and v1beta1): the
// way EKS (aws eks get-token), GKE (gke-gcloud-auth-plugin) and AKS
// (kubelogin) kubeconfigs authenticate. The plugin is run with
// KUBERNETES_EXEC_INFO describing the request, prints an ExecCredential on
// stdout, and its token is sent as a bearer token until its
// expirationTimestamp, or until the API server answers 401; then the
// plugin runs again. Gantry runs without a terminal: a plugin whose
// interactiveMode is Always is refused, and no stdin is given.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gantry::kube {

// Bounds on one run of a plugin.
constexpr std::size_t kExecMaxOutputBytes = 1 << 20;
constexpr std::chrono::seconds kExecTimeout{60};

struct ExecPlugin {
  std::string command;  // a path with a '/' is the kubeconfig's folder's; a bare name, PATH's
  std::vector<std::string> args{};
  std::vector<std::pair<std::string, std::string>> env{};  // added to Gantry's own
  std::string api_version{};   // client.authentication.k8s.io/v1 or /v1beta1
  std::string install_hint{};  // shown when the command cannot be run
  // provideClusterInfo: the cluster's server and CA go in KUBERNETES_EXEC_INFO.
  bool provide_cluster_info = false;
  std::string server{};
  std::string ca_pem{};
  bool insecure_skip_tls_verify = false;
};

struct ExecCredential {
  std::string token;
  std::optional<std::chrono::system_clock::time_point> expires;  // none: until a 401
};

// What a plugin printed, read as client-go reads it: kind ExecCredential, the
// apiVersion asked for, status.token (client certificates are not
// supported: the error says so), status.expirationTimestamp (RFC 3339).
// Throws std::runtime_error naming the field.
ExecCredential read_exec_credential(const std::string& printed, const std::string& api_version);

// Runs `plugin` once (at most kExecMaxOutputBytes of stdout, kExecTimeout); its
// stderr is Gantry's. Throws std::runtime_error saying what went wrong,
// with the plugin's install hint when it could not be started.
ExecCredential run_exec_plugin(const ExecPlugin& plugin);

// The token to send: the last one the plugin gave while it has not expired
// (10 s of margin, so a request does not arrive with a token expired on the
// way). Thread-safe; the plugin runs on the calling thread.
class ExecTokenSource {
 public:
  explicit ExecTokenSource(ExecPlugin plugin);
  std::string token();
  // The API server refused `token` (401): the next token() runs the plugin.
  void refused(const std::string& token);

 private:
  const ExecPlugin plugin_;
  std::mutex mutex_;
  std::optional<ExecCredential> credential_;
};

}  // namespace gantry::kube
