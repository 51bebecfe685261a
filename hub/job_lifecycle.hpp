// Volcano's job lifecycle policies (spec.policies, spec.tasks[].policies):
// which action a job takes when one of its events happens, how many restarts
// it may make and how long it waits before each. Pure functions of the
// JobSpec; SchedulerCore (hub/lifecycle_steps in scheduler.cpp, dispatch.cpp,
// preemption.cpp) applies what they decide.
//
// Every restart action restarts the whole gang: a Gantry gang is
// all-or-nothing, and a replica restarted alone would try to rejoin a
// rendezvous its peers have already left.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "protocol/messages.hpp"

namespace gantry::hub {

enum class LifecycleEvent : std::uint8_t {
  kNone,
  kPodFailed,      // a replica exited non-zero
  kPodEvicted,     // the hub evicted the gang (reclaim, preemption, drain)
  kPodPending,     // the job waited in its queue past a policy's timeout
  kTaskCompleted,  // every replica of a task succeeded
  kTaskFailed,     // a replica of the task failed and no PodFailed policy matched
  kJobUnknown,     // the job's cluster was lost
};

enum class LifecycleAction : std::uint8_t {
  kNone,  // no policy matched: the default behaviour
  kRestartJob,
  kRestartTask,
  kRestartPod,
  kAbortJob,
  kCompleteJob,
  kTerminateJob,
};

// Volcano's names ("PodFailed", "RestartJob"); "" for kNone.
std::string_view event_name(LifecycleEvent event);
std::string_view action_name(LifecycleAction action);
LifecycleAction parse_action(std::string_view name);  // kNone when unknown
bool is_restart(LifecycleAction action);

// The policy that decided an event.
struct ResolvedPolicy {
  LifecycleAction action = LifecycleAction::kNone;
  std::int64_t timeout_ms = 0;  // 0: act at once
};

// The task's policies first (they override the job's for that task's
// events), then the job's. An exitCode policy matches a PodFailed with that
// code; "*" matches every event. `task` indexes spec.tasks, -1 for a job-wide
// event. nullopt: no policy matched.
std::optional<ResolvedPolicy> resolve_policy(const protocol::JobSpec& spec, std::int32_t task,
                                             LifecycleEvent event, std::int32_t exit_code = 0);

// The restarts the job may make: the task's maxRetry when the event's task
// gives one, else the job's (Volcano's default 3).
std::int32_t max_retries(const protocol::JobSpec& spec, std::int32_t task);

// How long a job waits in its queue before a PodPending policy acts, and the
// policy: the first task's that has one, else the job's. nullopt: none.
std::optional<ResolvedPolicy> pending_policy(const protocol::JobSpec& spec);

// The wait before the `retry`-th restart (1 = the first): `base` doubling per
// retry, capped at kMaxRestartBackoffMs.
inline constexpr std::int64_t kDefaultRestartBackoffMs = 10'000;
inline constexpr std::int64_t kMaxRestartBackoffMs = 300'000;
std::int64_t restart_backoff_ms(std::int64_t base, std::int32_t retry);

// Index of the task named `name` in spec.tasks, -1 when none is.
std::int32_t task_index(const protocol::JobSpec& spec, std::string_view name);

}  // namespace gantry::hub
