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

#include "hub/runtime_estimate.hpp"
#include "support/curve_keys.hpp"

namespace gantry::actors {

struct HubOptions {
  std::string agents_endpoint = "tcp://127.0.0.1:7800";
  std::string admin_endpoint = "tcp://127.0.0.1:7801";
  std::filesystem::path state_dir = "./var";
  // What agents are told in their Welcome: how often to beat, and how many
  // missed beats make the hub dead to them.
  std::chrono::milliseconds heartbeat_interval{1000};
  std::int32_t liveness = 3;
  // Unset: heartbeat_interval x liveness (see HubActorsConfig).
  std::optional<std::chrono::milliseconds> recovery_grace;
  // The hub's default placement policy (hub::find_placement_policy).
  std::string placement = "binpack";
  // Blocked jobs of the queue order that get a backfill reservation (0: none).
  std::uint32_t reservations = 1;
  // --planned-runtimes: backfill plans from time limits or from learned runtimes.
  hub::PlannedRuntimes planned_runtimes = hub::PlannedRuntimes::kLimits;
  // --topology-tier-label TIER=LABEL, in order (hub::TopologyTiers::apply).
  std::vector<std::string> topology_tier_labels;
  // Reclaim spares a gang that has run this long (0: none is spared).
  std::chrono::milliseconds reclaim_spares_after{3'600'000};
  // Preemption and reclaim spare a run committed less than this ago (0: none).
  std::chrono::milliseconds min_runtime{0};
  // A job a lifecycle policy restarts waits this long, doubling per retry (5 min cap).
  std::chrono::milliseconds restart_backoff{10'000};
  // An agent silent this long: its cluster is not ready (its jobs stay).
  std::chrono::milliseconds agent_lease{30'000};
  // Silent this long (from its last frame): lost, its jobs are requeued.
  std::chrono::milliseconds lost_grace{120'000};
  // An ended job stays listed (get jobs, describe job) this long at most,
  // across restarts, unless deleted or its ttl ends first (--keep-finished).
  std::chrono::milliseconds keep_finished{7LL * 24 * 3'600'000};
  // A Prepare or Commit unanswered this long counts as a Reject.
  std::chrono::milliseconds prepare_timeout{10'000};

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
