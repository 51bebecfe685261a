// How the hub's agent lease, its lost grace and an agent's self-fence relate,
// in one place (docs/agents.md, "Leases and self-fencing"):
//
//   hub:   an agent silent for the lease makes its cluster not ready; silent
//          for the lost grace, the cluster is lost and its jobs are placed
//          again elsewhere;
//   agent: the Welcome's heartbeat_interval_ms x heartbeat_liveness is the
//          hub's lease (the hub fills it so); an agent whose last *confirmed*
//          contact (the send time of the last Hello or heartbeat the hub
//          answered) is older than that stops its runs itself, and so does
//          each run's supervisor when its agent is dead;
//   so:    the fence, plus the time to notice it and kill a run (the kill
//          margin), must end before the lost grace: the hub refuses a lost
//          grace shorter than lease + kill margin. Then the hub's requeue
//          can never overlap a copy of the run still alive on a cut-off
//          cluster.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace gantry::protocol {

using std::chrono::milliseconds;

inline constexpr milliseconds kDefaultAgentLease{30'000};
inline constexpr milliseconds kDefaultLostGrace{120'000};
// The kill margin never needs to be longer: a supervisor checks every second
// at most and gives a fenced run this much for SIGTERM.
inline constexpr milliseconds kMaxFenceKillMargin{15'000};

// The Welcome's heartbeat_liveness: the lease in whole heartbeat intervals
// (rounded down: the agent fences no later than the lease), at least one.
inline std::int32_t lease_in_heartbeats(milliseconds lease, milliseconds heartbeat) {
  if (heartbeat.count() <= 0) return 1;
  return static_cast<std::int32_t>(std::max<std::int64_t>(1, lease.count() / heartbeat.count()));
}

// How long after its fence timeout a fenced run may still be alive: half the
// timeout, at most kMaxFenceKillMargin.
inline milliseconds fence_kill_margin(milliseconds fence_after) {
  return std::min(fence_after / 2, kMaxFenceKillMargin);
}
// A supervisor's look at its agent's contact file, a quarter of the margin...
inline milliseconds fence_check_period(milliseconds fence_after) {
  return std::max(milliseconds{1}, fence_kill_margin(fence_after) / 4);
}
// ...and the SIGTERM grace of a fenced run, half of it, then SIGKILL; the
// last quarter is slack for scheduling.
inline milliseconds fence_term_grace(milliseconds fence_after) {
  return fence_kill_margin(fence_after) / 2;
}

// Why the hub may not run with this lease and lost grace ("" when it may).
inline std::string why_fence_unsafe(milliseconds lease, milliseconds lost_grace) {
  const milliseconds needed = lease + fence_kill_margin(lease);
  if (lost_grace >= needed) return "";
  return "must be at least --agent-lease plus its fence kill margin (" +
         std::to_string(needed.count()) +
         " ms): agents cut off for the lease stop their runs, and must be done before "
         "their jobs are placed again";
}

}  // namespace gantry::protocol
