// Where a Kubernetes API server is and how to authenticate to it, read from a
// kubeconfig file or from a pod's service-account mount.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kube/exec_credential.hpp"

namespace gantry::kube {

// Every member has a default, so designated initializers may name only some.
struct ClusterAccess {
  std::string
      server{};  // "https://host:port" or "http://host:port" (tests); may end in a path prefix
  std::string ca_pem{};           // PEM of the CA(s) to trust; empty: the system's default CAs
  std::string client_cert_pem{};  // client certificate (chain) and key (PEM), or empty
  std::string client_key_pem{};
  std::string bearer_token{};  // or empty
  // When set, the token is re-read from this file (at most once a minute), as
  // projected service-account tokens are rotated by the kubelet.
  std::string bearer_token_file{};
  bool insecure_skip_tls_verify = false;
  // A credential plugin (users[].user.exec) whose token is sent instead.
  std::optional<ExecPlugin> exec{};
};

// Reads a kubeconfig: `context`, or its current-context when empty; the
// cluster's server, certificate-authority(-data), insecure-skip-tls-verify; the
// user's client-certificate(-data), client-key(-data), token, tokenFile, exec
// (kube/exec_credential.hpp; auth-provider is refused: client-go dropped it
// for exec plugins). Data
// fields win over their file variants, and relative file paths resolve against
// the kubeconfig's folder. Throws std::runtime_error naming the file and the
// field, e.g. "kubeconfig /x: contexts[name=foo]: not found".
ClusterAccess load_kubeconfig(const std::filesystem::path& path, const std::string& context = "");

// Access from inside a pod: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT,
// and `token` and `ca.crt` from `dir` (without a ca.crt the system's CAs are
// trusted). Throws std::runtime_error naming what is missing.
ClusterAccess in_cluster_access(
    const std::filesystem::path& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace gantry::kube
