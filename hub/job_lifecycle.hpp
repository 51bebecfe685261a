// Volcano's job lifecycle policies (spec.policies, spec.tasks[].policies):
// which action a job takes when one of its events happens, how many restarts
// it may make and how long it waits before each. Resolved once from the
// JobSpec (JobPolicies); SchedulerCore (hub/lifecycle_steps in scheduler.cpp, two_phase.cpp,
// preemption.cpp) applies what they decide.
//
// Every restart action restarts the whole gang: a Gantry gang is
// all-or-nothing, and a replica restarted alone would try to rejoin a
// rendezvous its peers have already left.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A job's lifecycle policies, maxRetry and minSuccess, resolved once from
// its spec when it is submitted (hub::make_job_request): the core applies
// these and does not read the spec. A task's policies come first (they
// override the job's for that task's events), then the job's. An exitCode
// policy matches a PodFailed with that code; "*" matches every event.
class JobPolicies {
 public:
  explicit JobPolicies(const protocol::JobSpec& spec);

  // The policy that decides `event`; `task` indexes spec.tasks, -1 for a
  // job-wide event. nullopt: no policy matched.
  std::optional<ResolvedPolicy> resolve(std::int32_t task, LifecycleEvent event,
                                        std::int32_t exit_code = 0) const;
  // The restarts the job may make: the task's maxRetry when the event's
  // task gives one, else the job's (Volcano's default 3).
  std::int32_t max_retries(std::int32_t task) const;
  // How long a job waits in its queue before a PodPending policy acts, and
  // the policy: the first task's that has one, else the job's. nullopt: none.
  const std::optional<ResolvedPolicy>& pending() const { return pending_; }
  // Whether the job or a task gives any policy.
  bool any() const { return any_; }
  // spec.minSuccess; 0: not given.
  std::int32_t min_success() const { return min_success_; }
  // Index of the task named `name` in spec.tasks, -1 when none is.
  std::int32_t task_index(std::string_view name) const;
  // The name of spec.tasks[task]; "" when there is no such task.
  std::string_view task_name(std::int32_t task) const;

 private:
  struct Rule {
    bool by_exit_code = false;  // no events given: matches a PodFailed with exit_code
    std::int32_t exit_code = 0;
    std::uint32_t events = 0;  // one bit per LifecycleEvent listed ("*": every one)
    ResolvedPolicy policy;
  };
  struct Task {
    std::string name;
    std::vector<Rule> rules;
    std::int32_t max_retry = 0;  // 0: the job's
  };
  static std::vector<Rule> rules_of(const std::vector<protocol::LifecyclePolicy>& policies);
  static std::optional<ResolvedPolicy> first_match(const std::vector<Rule>& rules,
                                                   LifecycleEvent happened, std::int32_t exit_code);
  bool valid_task(std::int32_t task) const {
    return task >= 0 && static_cast<std::size_t>(task) < tasks_.size();
  }

  std::vector<Rule> job_rules_;
  std::vector<Task> tasks_;  // spec.tasks' order
  std::int32_t max_retry_ = 3;
  std::int32_t min_success_ = 0;
  bool any_ = false;
  std::optional<ResolvedPolicy> pending_;
};

// The wait before the `retry`-th restart (1 = the first): `base` doubling per
// retry, capped at kMaxRestartBackoffMs.
inline constexpr std::int64_t kDefaultRestartBackoffMs = 10'000;
inline constexpr std::int64_t kMaxRestartBackoffMs = 300'000;
std::int64_t restart_backoff_ms(std::int64_t base, std::int32_t retry);

}  // namespace gantry::hub
