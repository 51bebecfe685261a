// The Karmada gateway's I/O (docs/karmada.md): watches a Karmada control
// plane's Clusters and ResourceBindings, speaks for each member cluster on the
// hub's agent socket (one ZeroMQ session per cluster, as an agent would),
// submits bindings as jobs and cancels them on the admin socket, and writes
// releases and suspensions back to the bindings. Every decision is
// GatewayCore's; this file owns threads, sockets and HTTP.
//
// Threads: two reflectors (list + watch), one writer (binding patches and
// workload reads, which may block on the API server), one loop (the ZeroMQ
// sockets and the core). They meet in a mutex-guarded inbox that wakes the
// loop.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "agents/hub_session.hpp"
#include "kube/client.hpp"
#include "support/curve_socket.hpp"

namespace gantry::karmada {

struct GatewayOptions {
  kube::ClusterAccess access;
  std::string agents_endpoint;  // the hub's agent socket
  std::string admin_endpoint;   // the hub's admin socket
  agents::SessionTiming timing;
  // Both hub sockets are CurveZMQ servers: the gateway's DEALERs are clients
  // with these keys (in the hub's process: the hub's own keypair, always
  // allowed). nullopt: plaintext, for a hub started with --insecure.
  std::optional<support::CurveClientKeys> hub_keys;
  std::int64_t apply_timeout_ms = 120000;      // GatewayCoreOptions::apply_timeout_ms
  std::int64_t termination_grace_ms = 300000;  // GatewayCoreOptions::termination_grace_ms
  std::string bindings_path = "/apis/work.karmada.io/v1alpha2/resourcebindings";
  std::string clusters_path = "/apis/cluster.karmada.io/v1alpha1/clusters";
};

class Gateway {
 public:
  explicit Gateway(GatewayOptions options);
  ~Gateway();  // stop()
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  void start();
  void stop();  // idempotent; joins every thread

 private:
  struct Running;
  std::unique_ptr<Running> running_;
};

}  // namespace gantry::karmada
