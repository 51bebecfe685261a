// The pure half of hub/job_lifecycle.hpp: Volcano's event and action names,
// JobPolicies (what a job's spec says, resolved once) and the restart
// backoff. Free of SchedulerCore, so the submission path (make_job_request)
// links without it; how the core applies the policies is job_lifecycle.cpp.
#include <algorithm>
#include <vector>

#include "hub/job_lifecycle.hpp"

namespace gantry::hub {

namespace event = protocol::policy_event;
namespace action = protocol::policy_action;

std::string_view event_name(LifecycleEvent value) {
  switch (value) {
    case LifecycleEvent::kNone:
      return "";
    case LifecycleEvent::kPodFailed:
      return event::kPodFailed;
    case LifecycleEvent::kPodEvicted:
      return event::kPodEvicted;
    case LifecycleEvent::kPodPending:
      return event::kPodPending;
    case LifecycleEvent::kTaskCompleted:
      return event::kTaskCompleted;
    case LifecycleEvent::kTaskFailed:
      return event::kTaskFailed;
    case LifecycleEvent::kJobUnknown:
      return event::kJobUnknown;
  }
  return "";
}

std::string_view action_name(LifecycleAction value) {
  switch (value) {
    case LifecycleAction::kNone:
      return "";
    case LifecycleAction::kRestartJob:
      return action::kRestartJob;
    case LifecycleAction::kRestartTask:
      return action::kRestartTask;
    case LifecycleAction::kRestartPod:
      return action::kRestartPod;
    case LifecycleAction::kAbortJob:
      return action::kAbortJob;
    case LifecycleAction::kCompleteJob:
      return action::kCompleteJob;
    case LifecycleAction::kTerminateJob:
      return action::kTerminateJob;
  }
  return "";
}

LifecycleAction parse_action(std::string_view name) {
  for (LifecycleAction candidate :
       {LifecycleAction::kRestartJob, LifecycleAction::kRestartTask, LifecycleAction::kRestartPod,
        LifecycleAction::kAbortJob, LifecycleAction::kCompleteJob, LifecycleAction::kTerminateJob})
    if (action_name(candidate) == name) return candidate;
  return LifecycleAction::kNone;
}

bool is_restart(LifecycleAction value) {
  return value == LifecycleAction::kRestartJob || value == LifecycleAction::kRestartTask ||
         value == LifecycleAction::kRestartPod;
}

namespace {

constexpr LifecycleEvent kEveryEvent[] = {
    LifecycleEvent::kPodFailed,     LifecycleEvent::kPodEvicted, LifecycleEvent::kPodPending,
    LifecycleEvent::kTaskCompleted, LifecycleEvent::kTaskFailed, LifecycleEvent::kJobUnknown};

std::uint32_t bit(LifecycleEvent event) {
  return 1U << static_cast<std::uint32_t>(event);
}

// The events a policy lists, as bits; unknown names match nothing.
std::uint32_t listed_events(const std::vector<std::string>& names) {
  std::uint32_t events = 0;
  for (const std::string& name : names)
    for (LifecycleEvent event : kEveryEvent)
      if (name == event::kAny || name == event_name(event)) events |= bit(event);
  return events;
}

}  // namespace

std::vector<JobPolicies::Rule> JobPolicies::rules_of(
    const std::vector<protocol::LifecyclePolicy>& policies) {
  std::vector<Rule> rules;
  for (const protocol::LifecyclePolicy& policy : policies) {
    const LifecycleAction chosen = parse_action(policy.action);
    if (chosen == LifecycleAction::kNone) continue;  // refused at parse time; never trusted here
    rules.push_back(Rule{policy.events.empty(), policy.exit_code, listed_events(policy.events),
                         ResolvedPolicy{chosen, policy.timeout_ms}});
  }
  return rules;
}

JobPolicies::JobPolicies(const protocol::JobSpec& spec)
    : job_rules_(rules_of(spec.policies)),
      max_retry_(spec.max_retry),
      min_success_(spec.min_success),
      any_(!spec.policies.empty()) {
  tasks_.reserve(spec.tasks.size());
  for (const protocol::TaskSpec& task : spec.tasks) {
    tasks_.push_back(Task{task.name, rules_of(task.policies), task.max_retry});
    any_ = any_ || !task.policies.empty();
  }
  for (const Task& task : tasks_) {
    auto found = first_match(task.rules, LifecycleEvent::kPodPending, 0);
    if (found && found->timeout_ms > 0) {
      pending_ = found;
      return;
    }
  }
  auto found = first_match(job_rules_, LifecycleEvent::kPodPending, 0);
  if (found && found->timeout_ms > 0) pending_ = found;
}

std::optional<ResolvedPolicy> JobPolicies::first_match(const std::vector<Rule>& rules,
                                                       LifecycleEvent happened,
                                                       std::int32_t exit_code) {
  for (const Rule& rule : rules) {
    const bool matched = rule.by_exit_code ? happened == LifecycleEvent::kPodFailed &&
                                                 rule.exit_code != 0 && rule.exit_code == exit_code
                                           : (rule.events & bit(happened)) != 0;
    if (matched) return rule.policy;
  }
  return std::nullopt;
}

std::optional<ResolvedPolicy> JobPolicies::resolve(std::int32_t task, LifecycleEvent happened,
                                                   std::int32_t exit_code) const {
  if (happened == LifecycleEvent::kNone) return std::nullopt;
  if (valid_task(task)) {
    if (auto found = first_match(tasks_[static_cast<std::size_t>(task)].rules, happened, exit_code))
      return found;
  }
  return first_match(job_rules_, happened, exit_code);
}

std::int32_t JobPolicies::max_retries(std::int32_t task) const {
  if (valid_task(task) && tasks_[static_cast<std::size_t>(task)].max_retry > 0)
    return tasks_[static_cast<std::size_t>(task)].max_retry;
  return max_retry_;
}

std::int32_t JobPolicies::task_index(std::string_view name) const {
  for (std::size_t t = 0; t < tasks_.size(); ++t)
    if (tasks_[t].name == name) return static_cast<std::int32_t>(t);
  return -1;
}

std::string_view JobPolicies::task_name(std::int32_t task) const {
  return valid_task(task) ? std::string_view(tasks_[static_cast<std::size_t>(task)].name) : "";
}

std::int64_t restart_backoff_ms(std::int64_t base, std::int32_t retry) {
  std::int64_t wait = std::max<std::int64_t>(0, base);
  for (std::int32_t i = 1; i < retry && wait < kMaxRestartBackoffMs; ++i) wait *= 2;
  return std::min(wait, kMaxRestartBackoffMs);
}

}  // namespace gantry::hub
