// The gantry-hub process minus its command line: the job store, the actor
// system with the hub's actors, and the I/O bridge, started and stopped as one.
// Free of CAF and ZeroMQ includes so that main.cpp stays cheap to compile.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/hub_settings.hpp"
#include "etcd/access.hpp"
#include "support/curve_keys.hpp"
#include "support/metrics_endpoint.hpp"

namespace gantry::actors {

// The HTTP endpoint (docs/metrics.md): /metrics for Prometheus, /healthz and
// /readyz for probes. "" token_file: metrics.token in the state folder.
using HubHttpOptions = support::HttpEndpointFlags;

struct HubOptions {
  std::string agents_endpoint = "tcp://127.0.0.1:7800";
  std::string admin_endpoint = "tcp://127.0.0.1:7801";
  std::filesystem::path state_dir = "./var";
  // Where jobs are kept: "" for gantry.db in state_dir (SQLite), or
  // etcd://HOST:PORT[,HOST:PORT...][/PREFIX] (actors/etcd_job_store.hpp).
  std::string store;
  // How every client of an etcd store reaches it: TLS files (https://
  // endpoints) and etcd credentials (--store-cacert, --store-user, ...).
  etcd::Access store_access;
  // The host put in the endpoints this hub advertises to the others on its
  // store when it binds a wildcard address; "" for the host name.
  std::string advertise_host;
  HubSettings settings;

  // Security (docs/security.md). Empty paths: hub.key, access.yaml and
  // audit.log in state_dir. insecure: plaintext sockets, no keys, every
  // peer an admin.
  bool insecure = false;
  // Limits on both sockets (actors/socket_limits.hpp): a bigger frame is
  // answered with an error (twice as big: the connection is dropped), the
  // newest connection over the limit is closed, and so is one silent that long.
  std::int64_t max_frame_bytes = 16 * 1024 * 1024;
  int max_connections = 1024;
  std::chrono::milliseconds idle_timeout{600'000};
  std::filesystem::path key_file;
  std::filesystem::path access_file;
  std::filesystem::path audit_log;
  HubHttpOptions http;
};

class Hub {
 public:
  // Opens the store, re-queues its unfinished jobs, binds both sockets and
  // starts serving. Throws std::runtime_error with a message for the operator.
  explicit Hub(const HubOptions& options);
  ~Hub();  // stop()
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  const std::string& agents_endpoint() const;  // as bound (port chosen for ":*")
  const std::string& admin_endpoint() const;
  std::uint16_t http_port() const;  // as bound; 0 without --http-listen
  // The hub's keypair (empty when insecure): its in-process Karmada gateway
  // connects with it.
  const support::CurveKeyPair& keys() const;
  // Reads the access list again (SIGHUP). A damaged file is refused and the
  // current list kept; returns false then, after logging why.
  bool reload_access();
  // Stops the I/O thread, then the actors. Idempotent.
  void stop();

 private:
  struct Running;
  std::unique_ptr<Running> running_;
};

}  // namespace gantry::actors
