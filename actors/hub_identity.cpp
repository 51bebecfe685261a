#include "actors/hub_identity.hpp"

#include <unistd.h>

#include <filesystem>

namespace gantry::actors {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

std::string hub_identity(const HubOptions& options) {
  return host_name() + " " + std::filesystem::absolute(options.state_dir).string();
}

std::string advertised_endpoint(const std::string& endpoint, const std::string& host) {
  const std::size_t scheme = endpoint.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos || colon < start) return endpoint;
  const std::string bound = endpoint.substr(start, colon - start);
  if (bound != "*" && bound != "0.0.0.0" && bound != "[::]" && bound != "::") return endpoint;
  return endpoint.substr(0, start) + host + endpoint.substr(colon);
}

protocol::HubInfo hub_self(const HubOptions& options, std::int64_t started_ms) {
  const std::string host = options.advertise_host.empty() ? host_name() : options.advertise_host;
  protocol::HubInfo self;
  self.name = hub_identity(options);
  self.admin = advertised_endpoint(options.admin_endpoint, host);
  self.agents = advertised_endpoint(options.agents_endpoint, host);
  if (!options.http.listen.empty()) self.http = advertised_endpoint(options.http.listen, host);
  self.started_ms = started_ms;
  return self;
}

void render_leader_gauge(support::PrometheusText& text, bool leader) {
  text.family("gantry_hub_leader", "gauge",
              "1 when this hub holds the job store and schedules, 0 while it stands by.");
  text.sample("gantry_hub_leader", {}, leader ? 1 : 0);
}

}  // namespace gantry::actors
