// in_cluster_access: what client-go's rest.InClusterConfig reads.
#include <cstdlib>
#include <stdexcept>

#include "kube/cluster_access.hpp"
#include "kube/read_file.hpp"

namespace gantry::kube {
namespace {

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string("in-cluster access: ") + name +
                             " is not set (not running in a pod?)");
  }
  return value;
}

}  // namespace

ClusterAccess in_cluster_access(const std::filesystem::path& dir) {
  const std::string host = required_env("KUBERNETES_SERVICE_HOST");
  const std::string port = required_env("KUBERNETES_SERVICE_PORT");
  ClusterAccess access;
  const bool ipv6 = host.find(':') != std::string::npos;
  access.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;

  const std::filesystem::path token_file = dir / "token";
  const auto token = read_whole_file(token_file);
  if (!token) throw std::runtime_error("in-cluster access: cannot read " + token_file.string());
  access.bearer_token = trim_token(*token);
  access.bearer_token_file = token_file.string();

  // Like client-go: without a readable CA bundle the system's CAs are trusted.
  if (const auto ca = read_whole_file(dir / "ca.crt")) access.ca_pem = *ca;
  return access;
}

}  // namespace gantry::kube
