// How the hub's agent lease, its lost grace and an agent's self-fence relate,
// in one place (docs/agents.md, "Leases and self-fencing"):
//
//   hub:   an agent silent for the lease makes its cluster not ready; silent
//          for the lost grace, the cluster is lost and its jobs are placed
//          again elsewhere;
//   agent: an agent whose last *confirmed* contact (the send time of the last
//          Hello or heartbeat the hub answered) is older than its fence
//          timeout stops its runs itself, and so does each run's supervisor
//          when its agent is dead. The fence timeout is the longest that,
//          with the time to notice and kill a run (the kill margin), still
//          ends before the lost grace: the hub's requeue never meets a live
//          copy on a cut-off cluster, and a healthy agent that merely stalls
//          is not fenced sooner than it must be. The hub says it in the
//          Welcome: heartbeat_interval_ms x heartbeat_liveness;
//   so:    the hub refuses a lost grace shorter than lease + kill margin: the
//          fence never comes before the cluster is even counted silent.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace gantry::protocol {

using std::chrono::milliseconds;

inline constexpr milliseconds kDefaultAgentLease{30'000};
inline constexpr milliseconds kDefaultLostGrace{120'000};
// The kill margin never needs to be longer: a supervisor checks every few
// seconds at most and gives a fenced run this much for SIGTERM.
inline constexpr milliseconds kMaxFenceKillMargin{15'000};

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

// The longest fence timeout F with F + fence_kill_margin(F) <= lost_grace.
inline milliseconds fence_timeout(milliseconds lost_grace) {
  return std::max(lost_grace - kMaxFenceKillMargin, lost_grace * 2 / 3);
}

// The Welcome's heartbeat_liveness: the fence timeout in whole heartbeat
// intervals (rounded down: the agent fences no later than it must), at least one.
inline std::int32_t fence_in_heartbeats(milliseconds lost_grace, milliseconds heartbeat) {
  if (heartbeat.count() <= 0) return 1;
  return static_cast<std::int32_t>(
      std::max<std::int64_t>(1, fence_timeout(lost_grace).count() / heartbeat.count()));
}

// Why the hub may not run with this lease and lost grace ("" when it may).
inline std::string why_fence_unsafe(milliseconds lease, milliseconds lost_grace) {
  const milliseconds needed = lease + fence_kill_margin(lease);
  if (lost_grace >= needed) return "";
  return "must be at least --agent-lease plus its fence kill margin (" +
         std::to_string(needed.count()) +
         " ms): agents cut off for longer stop their runs, and must be done before their jobs "
         "are placed again";
}

}  // namespace gantry::protocol
