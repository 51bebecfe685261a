#include "hub/job_lifecycle.hpp"

#include <algorithm>
#include <vector>

#include "hub/scheduler.hpp"

namespace gantry::hub {

// ------------------------------------------------------------------ in the core
// How SchedulerCore applies what the policies decide. Events are rare (a
// replica failing, an eviction): this code may allocate; the pass only ever
// looks at the first entry of restart_waits_ and pending_deadlines_.

namespace {

std::string seconds_text(TimeMs ms) {
  const TimeMs tenths = (ms + 50) / 100;
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") +
         " s";
}

// "PodFailed (task worker, replica 1, exit code 3)"
std::string event_text(const Job& job) {
  const RunHistory& history = job.history();
  std::string text(event_name(history.last_event));
  const std::string_view task =
      job.policies ? job.policies->task_name(history.last_event_task) : std::string_view();
  if (task.empty()) return text;
  text += " (task " + std::string(task);
  if (history.last_event_replica >= 0)
    text += ", replica " + std::to_string(history.last_event_replica);
  if (history.last_event == LifecycleEvent::kPodFailed)
    text += ", exit code " + std::to_string(history.last_exit_code);
  return text + ")";
}

JobPhase stopping_phase(LifecycleAction action) {
  switch (action) {
    case LifecycleAction::kCompleteJob:
      return JobPhase::kCompleting;
    case LifecycleAction::kAbortJob:
      return JobPhase::kAborting;
    case LifecycleAction::kTerminateJob:
      return JobPhase::kTerminating;
    default:
      return JobPhase::kRestarting;
  }
}

}  // namespace

void SchedulerCore::note_part_failure(DispatchId dispatch_id, ClusterIndex cluster,
                                      std::string_view task, std::int32_t replica,
                                      std::int32_t exit_code) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  DispatchPart* part = it->second.part_on(cluster);
  if (part == nullptr) return;
  const Job& job = jobs_[it->second.job];
  part->failed_task = job.policies ? job.policies->task_index(task) : -1;
  part->failed_replica = std::max(replica, 0);
  part->failed_exit_code = exit_code;
}

void SchedulerCore::take_lifecycle_steps(std::vector<LifecycleStep>& out) {
  out.clear();
  out.swap(lifecycle_steps_);
}

void SchedulerCore::note_step(JobId id, DispatchId dispatch, std::vector<ClusterIndex> stop,
                              std::string text) {
  lifecycle_steps_.push_back(
      LifecycleStep{id, dispatch, std::move(stop), jobs_[id].phase, std::move(text)});
}

// A failed part of a running job whose agent named the replica (PodFailed):
// the task's or job's PodFailed policy, else its TaskFailed policy, else the
// default (kIgnored: the job fails, or with minSuccess waits for the others).
PartEnd SchedulerCore::part_failed(Dispatch& dispatch, const DispatchPart& part,
                                   std::string_view message, TimeMs now) {
  PartEnd result;
  Job& job = jobs_[dispatch.job];
  if (!job.policies || part.failed_replica < 0) return result;
  const JobPolicies& policies = *job.policies;
  RunHistory& history = job.edit_history();
  if (history.first_failure.empty()) history.first_failure = std::string(message);
  history.last_event = LifecycleEvent::kPodFailed;
  history.last_action = LifecycleAction::kNone;
  history.last_event_task = part.failed_task;
  history.last_event_replica = part.failed_replica;
  history.last_exit_code = part.failed_exit_code;
  LifecycleEvent event = LifecycleEvent::kPodFailed;
  std::optional<ResolvedPolicy> policy =
      policies.resolve(part.failed_task, event, part.failed_exit_code);
  if (!policy) {
    event = LifecycleEvent::kTaskFailed;
    policy = policies.resolve(part.failed_task, event);
  }
  if (!policy) {
    const bool others_live =
        std::any_of(dispatch.parts.begin(), dispatch.parts.end(),
                    [](const DispatchPart& each) { return each.state != PartState::kEnded; });
    // With minSuccess a failure does not fail the job: the rest may still succeed.
    if (policies.min_success() > 0 && others_live) result.kind = PartEnd::Kind::kPartDone;
    return result;
  }
  act(dispatch.job, event, policy->action, policy->timeout_ms, part.failed_task, message, now);
  result.kind = PartEnd::Kind::kLifecycle;
  return result;
}

// Every live part of the job's dispatch is told to stop; returns where they run.
std::vector<ClusterIndex> SchedulerCore::stop_live_parts(Job& job) {
  std::vector<ClusterIndex> stop;
  auto it = dispatches_.find(job.dispatch);
  if (it == dispatches_.end()) return stop;
  for (DispatchPart& part : it->second.parts) {
    if (part.state == PartState::kEnded) continue;
    part.state = PartState::kStopping;
    stop.push_back(part.cluster);
  }
  return stop;
}

// Takes `action` for `event` (the job's last_event_* fields already name it).
// Returns false when a restart was refused because the retries ran out (the
// job failed).
bool SchedulerCore::act(JobId id, LifecycleEvent event, LifecycleAction action,
                        std::int64_t timeout_ms, std::int32_t task, std::string_view message,
                        TimeMs now) {
  Job& job = jobs_[id];
  RunHistory& history = job.edit_history();
  history.last_event = event;
  history.last_action = action;
  const DispatchId dispatch = job.dispatch;
  std::string text = event_text(job) + ": " + std::string(action_name(action));
  if (is_restart(action)) {
    const std::int32_t limit = job.policies ? job.policies->max_retries(task) : 0;
    if (history.retries >= limit) {
      std::vector<ClusterIndex> stop = stop_live_parts(job);
      const std::string cause = !history.first_failure.empty() ? history.first_failure
                                : !message.empty()             ? std::string(message)
                                                               : std::string(event_name(event));
      end_job(id, JobPhase::kFailed,
              "failed after " + std::to_string(history.retries) + " retries: " + cause, now);
      note_step(
          id, dispatch, std::move(stop),
          text + " refused: maxRetry " + std::to_string(limit) + " reached; " + history.message);
      return false;
    }
    ++history.retries;
    history.restart_at =
        now + (timeout_ms > 0 ? timeout_ms
                              : restart_backoff_ms(options_.restart_backoff_ms, history.retries));
    text += " (retry " + std::to_string(history.retries) + " of " + std::to_string(limit) + ")";
  }
  job.phase = stopping_phase(action);
  std::vector<ClusterIndex> stop = stop_live_parts(job);
  if (stop.empty()) {
    settle(id, now);
    text += job.phase == JobPhase::kPending ? "; pending again, placed after its backoff (" +
                                                  seconds_text(history.restart_at - now) + ")"
                                            : "; " + std::string(phase_name(job.phase));
  } else {
    text += "; " + std::string(phase_name(job.phase)) + ": stopping " +
            std::to_string(stop.size()) + " part(s)";
  }
  note_step(id, dispatch, std::move(stop), std::move(text));
  return true;
}

// Nothing of the job's dispatch runs any more: it goes where the policy sent it.
void SchedulerCore::settle(JobId id, TimeMs now) {
  Job& job = jobs_[id];
  if (job.dispatch != 0) release_dispatch(job.dispatch);
  job.dispatch = 0;
  switch (job.phase) {
    case JobPhase::kRestarting:
      wait_for_restart(id, now);
      return;
    case JobPhase::kCompleting:
      end_job(id, JobPhase::kCompleted, "", now);
      return;
    case JobPhase::kAborting:
      end_job(id, JobPhase::kAborted, "", now);
      return;
    case JobPhase::kTerminating:
      end_job(id, JobPhase::kTerminated, "", now);
      return;
    default:
      return;
  }
}

PartEnd SchedulerCore::part_stopped_in_transition(Dispatch& dispatch, TimeMs now) {
  PartEnd result;
  for (const DispatchPart& each : dispatch.parts) {
    if (each.state == PartState::kEnded) continue;
    result.kind = PartEnd::Kind::kPartDone;
    return result;
  }
  const JobId id = dispatch.job;
  const DispatchId dispatch_id = dispatch.id;
  settle(id, now);  // releases `dispatch`
  const Job& job = jobs_[id];
  note_step(id, dispatch_id, {},
            job.phase == JobPhase::kPending
                ? "every part stopped; pending again, placed after its backoff (" +
                      seconds_text(std::max<TimeMs>(0, job.history().restart_at - now)) + ")"
                : "every part stopped: " + std::string(phase_name(job.phase)));
  result.kind = PartEnd::Kind::kLifecycle;
  return result;
}

void SchedulerCore::end_job(JobId id, JobPhase phase, std::string_view message, TimeMs now) {
  Job& job = jobs_[id];
  if (job.dispatch != 0) release_dispatch(job.dispatch);
  dequeue(id);
  restart_waits_.erase({job.history().restart_at, id});
  if (job.started_ms == 0) job.started_ms = now;
  job.phase = phase;
  job.finished_ms = now;
  job.dispatch = 0;
  if (!message.empty()) job.edit_history().message = std::string(message);
}

// Out of its queue until restart_at: the pass never looks at it meanwhile.
void SchedulerCore::wait_for_restart(JobId id, TimeMs now) {
  Job& job = jobs_[id];
  job.phase = JobPhase::kPending;
  job.dispatch = 0;
  job.started_ms = 0;
  job.tasks.clear();
  job.reason = PendingReason{PendingReason::Kind::kRestartBackoff};
  if (job.history().restart_at <= now) {
    enqueue(id);
    arm_pending_timeout(id, now);
    return;
  }
  restart_waits_.emplace(job.history().restart_at, id);
}

void SchedulerCore::release_restart_waits(TimeMs now) {
  while (!restart_waits_.empty() && restart_waits_.begin()->first <= now) {
    const auto [at, id] = *restart_waits_.begin();
    restart_waits_.erase(restart_waits_.begin());
    Job& job = jobs_[id];
    if (job.phase != JobPhase::kPending || job.dispatch != 0 || job.history().restart_at != at)
      continue;
    enqueue(id);
    arm_pending_timeout(id, now);
  }
}

// The dispatch is gone already (evicted, its cluster lost, drained): the
// event's job-level policy decides; without one the job is requeued as before.
// Returns true when a policy acted.
bool SchedulerCore::requeue_or_apply(JobId id, PendingReason reason, LifecycleEvent event,
                                     TimeMs now) {
  Job& job = jobs_[id];
  if (is_stopping_for_policy(job.phase)) {  // was stopping anyway: that is done now
    const DispatchId dispatch = job.dispatch;
    job.dispatch = 0;
    settle(id, now);
    note_step(id, dispatch, {}, "stopped: " + std::string(phase_name(job.phase)));
    return true;
  }
  std::optional<ResolvedPolicy> policy;
  if (job.policies) policy = job.policies->resolve(-1, event);
  if (!policy) {
    requeue(id, reason, now);
    return false;
  }
  job.dispatch = 0;
  job.started_ms = 0;
  RunHistory& history = job.edit_history();
  history.requeue_cause = reason;
  history.last_event_task = -1;
  history.last_event_replica = -1;
  history.last_exit_code = 0;
  act(id, event, policy->action, policy->timeout_ms, -1, "", now);
  return true;
}

void SchedulerCore::check_tasks_completed(DispatchId dispatch_id, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  const Dispatch& dispatch = it->second;
  Job& job = jobs_[dispatch.job];
  if (job.phase != JobPhase::kRunning || !job.policies || !job.policies->any()) return;
  auto succeeded = [&](std::size_t t) {
    std::int32_t placed = 0;
    for (const DispatchPart& part : dispatch.parts)
      if (t < part.task_replicas.size()) placed += part.task_replicas[t];
    if (placed == 0) return false;
    for (const protocol::TaskStatus& counts : job.tasks)
      if (counts.name == job.gang.tasks[t].name) return counts.succeeded >= placed;
    return false;
  };
  std::size_t done = 0;
  for (std::size_t t = 0; t < job.gang.tasks.size(); ++t) done += succeeded(t) ? 1 : 0;
  // Every task done: the job completes by itself.
  if (done == 0 || done == job.gang.tasks.size()) return;
  for (std::size_t t = 0; t < job.gang.tasks.size(); ++t) {
    if (!succeeded(t)) continue;
    const std::int32_t task = job.policies->task_index(job.gang.tasks[t].name);
    const std::optional<ResolvedPolicy> policy =
        job.policies->resolve(task, LifecycleEvent::kTaskCompleted);
    if (!policy) continue;
    RunHistory& history = job.edit_history();
    history.last_event_task = task;
    history.last_event_replica = -1;
    history.last_exit_code = 0;
    act(dispatch.job, LifecycleEvent::kTaskCompleted, policy->action, policy->timeout_ms, task, "",
        now);
    return;
  }
}

void SchedulerCore::arm_pending_timeout(JobId id, TimeMs now) {
  Job& job = jobs_[id];
  disarm_pending_timeout(id);
  if (!job.policies || !job.policies->pending()) return;
  const std::optional<ResolvedPolicy>& policy = job.policies->pending();
  const TimeMs deadline = now + policy->timeout_ms;
  job.edit_history().pending_deadline = deadline;
  pending_deadlines_.emplace(deadline, id);
}

void SchedulerCore::disarm_pending_timeout(JobId id) {
  Job& job = jobs_[id];
  if (job.history().pending_deadline == 0) return;  // nothing to disarm: allocate nothing
  RunHistory& history = job.edit_history();
  pending_deadlines_.erase({history.pending_deadline, id});
  history.pending_deadline = 0;
}

// PodPending: the job waited in its queue past its policy's timeout.
void SchedulerCore::fire_pending_timeouts(TimeMs now) {
  while (!pending_deadlines_.empty() && pending_deadlines_.begin()->first <= now) {
    const auto [at, id] = *pending_deadlines_.begin();
    pending_deadlines_.erase(pending_deadlines_.begin());
    Job& job = jobs_[id];
    if (job.history().pending_deadline != at) continue;
    RunHistory& history = job.edit_history();
    history.pending_deadline = 0;
    if (job.phase != JobPhase::kPending || job.dispatch != 0 || !job.policies) continue;
    const std::optional<ResolvedPolicy> policy = job.policies->pending();
    if (!policy) continue;
    dequeue(id);
    history.last_event_task = -1;
    history.last_event_replica = -1;
    history.last_exit_code = 0;
    act(id, LifecycleEvent::kPodPending, policy->action, 0, -1, "", now);
  }
}

}  // namespace gantry::hub
