// Two-phase dispatch in the core: what each part's agent answers (admit,
// reject, progress, end) does to the dispatch and its job. A part is named by
// (dispatch id, cluster): a cluster holds at most one part of a dispatch.
#include <algorithm>

#include "hub/scheduler.hpp"

namespace gantry::hub {

AdmitOutcome SchedulerCore::part_admitted(DispatchId dispatch_id, ClusterIndex cluster,
                                          const std::string& rendezvous_host,
                                          std::int32_t rendezvous_port, TimeMs /*now*/) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end() || it->second.committed) return AdmitOutcome::kIgnored;
  Dispatch& dispatch = it->second;
  DispatchPart* part = dispatch.part_on(cluster);
  if (part == nullptr || part->state != PartState::kPreparing) return AdmitOutcome::kIgnored;
  part->state = PartState::kAdmitted;
  if (part == &dispatch.parts.front()) {
    dispatch.rendezvous_host = rendezvous_host;
    dispatch.rendezvous_port = rendezvous_port;
  }
  for (const DispatchPart& each : dispatch.parts)
    if (each.state != PartState::kAdmitted) return AdmitOutcome::kWaitingForParts;
  return AdmitOutcome::kAllAdmitted;
}

void SchedulerCore::commit(DispatchId dispatch_id, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end() || it->second.committed) return;
  Dispatch& dispatch = it->second;
  dispatch.committed = true;
  dispatch.committed_ms = now;
  for (DispatchPart& part : dispatch.parts) part.state = PartState::kCommitted;
  Job& job = jobs_[dispatch.job];
  job.phase = JobPhase::kRunning;
  job.started_ms = now;
  plan_run_end(dispatch, now);
}

void SchedulerCore::set_rendezvous(DispatchId dispatch_id, std::string host, std::int32_t port) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  it->second.rendezvous_host = std::move(host);
  it->second.rendezvous_port = port;
}

void SchedulerCore::back_off(Job& job, ClusterIndex cluster, TimeMs now) {
  std::vector<ClusterBackoff>& backoffs = job.notes().backoffs;
  auto found = std::find_if(backoffs.begin(), backoffs.end(),
                            [cluster](const ClusterBackoff& b) { return b.cluster == cluster; });
  if (found == backoffs.end())
    found = backoffs.insert(backoffs.end(), ClusterBackoff{cluster, 0, 0});
  ++found->refusals;
  TimeMs wait = options_.backoff_base_ms;
  for (std::int32_t i = 1; i < found->refusals && wait < options_.backoff_max_ms; ++i) wait *= 2;
  found->until = now + std::min(wait, options_.backoff_max_ms);
  backoff_ends_.emplace(found->until, job_index(job));
}

TimeMs SchedulerCore::next_backoff_end(TimeMs now) {
  while (!backoff_ends_.empty() && backoff_ends_.begin()->first <= now)
    backoff_ends_.erase(backoff_ends_.begin());
  TimeMs next = backoff_ends_.empty() ? 0 : backoff_ends_.begin()->first;
  // Restart backoffs and PodPending timeouts wake a pass the same way.
  for (const auto* waits : {&restart_waits_, &pending_deadlines_}) {
    if (waits->empty()) continue;
    const TimeMs at = std::max(waits->begin()->first, now + 1);
    if (next == 0 || at < next) next = at;
  }
  return next;
}

TimeMs SchedulerCore::backed_off_until(JobId id, ClusterIndex cluster) const {
  const Job& job = jobs_[id];
  if (!job.has_backoffs()) return 0;
  for (const ClusterBackoff& backoff : job.placement_notes->backoffs)
    if (backoff.cluster == cluster) return backoff.until;
  return 0;
}

std::vector<ClusterIndex> SchedulerCore::part_rejected(DispatchId dispatch_id, ClusterIndex cluster,
                                                       std::string_view reason_text, TimeMs now) {
  std::vector<ClusterIndex> others;
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end() || it->second.part_on(cluster) == nullptr) return others;
  const JobId id = it->second.job;
  for (const DispatchPart& part : it->second.parts)
    if (part.cluster != cluster && part.state != PartState::kEnded) others.push_back(part.cluster);
  release_dispatch(dispatch_id);
  Job& job = jobs_[id];
  back_off(job, cluster, now);
  job.edit_history().message = std::string(reason_text);
  PendingReason reason;
  reason.kind = PendingReason::Kind::kRejectedByCluster;
  reason.cluster = cluster;
  requeue(id, reason, now);
  return others;
}

bool SchedulerCore::note_part_waiting(DispatchId dispatch_id, ClusterIndex cluster,
                                      std::string waiting, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return false;
  Dispatch& dispatch = it->second;
  DispatchPart* part = dispatch.part_on(cluster);
  if (part == nullptr || part->waiting == waiting) return false;
  const bool was_waiting = !part->waiting.empty();
  part->waiting = std::move(waiting);
  if (!was_waiting || !waiting_text(dispatch).empty()) return false;
  // Everything runs now: its run counts from here, not from the commit.
  jobs_[dispatch.job].started_ms = now;
  plan_run_end(dispatch, now);
  return true;
}

std::string SchedulerCore::waiting_text(const Dispatch& dispatch) const {
  for (const DispatchPart& part : dispatch.parts) {
    if (!part.waiting.empty())
      return "waiting on " + clusters_[part.cluster].name() + ": " + part.waiting;
  }
  return "";
}

void SchedulerCore::update_tasks(DispatchId dispatch_id, ClusterIndex cluster,
                                 std::vector<protocol::TaskStatus> tasks) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  DispatchPart* part = it->second.part_on(cluster);
  if (part == nullptr) return;
  part->tasks = std::move(tasks);
  // The job's counts are the parts' sums, task by task, in the first part's order.
  std::vector<protocol::TaskStatus>& sum = jobs_[it->second.job].tasks;
  sum.clear();
  for (const DispatchPart& each : it->second.parts) {
    for (const protocol::TaskStatus& task : each.tasks) {
      auto same = std::find_if(sum.begin(), sum.end(),
                               [&](const protocol::TaskStatus& s) { return s.name == task.name; });
      if (same == sum.end()) {
        sum.push_back(task);
        continue;
      }
      same->pending += task.pending;
      same->running += task.running;
      same->succeeded += task.succeeded;
      same->failed += task.failed;
    }
  }
}

PartEnd SchedulerCore::part_finished(DispatchId dispatch_id, ClusterIndex cluster, JobPhase phase,
                                     std::string_view message, TimeMs now) {
  PartEnd result;
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return result;
  Dispatch& dispatch = it->second;
  DispatchPart* part = dispatch.part_on(cluster);
  if (part == nullptr || part->state == PartState::kEnded) return result;
  const bool stopping = part->state == PartState::kStopping;
  part->state = PartState::kEnded;
  part->end = phase == JobPhase::kFailed ? JobPhase::kFailed : JobPhase::kCompleted;
  const JobId id = dispatch.job;
  Job& job = jobs_[id];
  bool others_live = false;
  bool all_completed = true;
  for (const DispatchPart& each : dispatch.parts) {
    if (each.state != PartState::kEnded) others_live = true;
    if (each.state != PartState::kEnded || each.end != JobPhase::kCompleted) all_completed = false;
  }
  if (is_stopping_for_policy(job.phase)) return part_stopped_in_transition(dispatch, now);
  if (stopping && !all_completed) {  // drained: the job moves once nothing of it runs
    if (others_live) {
      result.kind = PartEnd::Kind::kPartDone;
      return result;
    }
    const PendingReason reason = job.history().requeue_cause;
    release_dispatch(dispatch_id);
    const bool acted = requeue_or_apply(id, reason, LifecycleEvent::kPodEvicted, now);
    result.kind = acted ? PartEnd::Kind::kLifecycle : PartEnd::Kind::kRequeued;
    return result;
  }
  if (part->end == JobPhase::kCompleted && !all_completed) {
    if (others_live) {
      result.kind = PartEnd::Kind::kPartDone;
      return result;
    }
  }
  if (part->end == JobPhase::kFailed) {
    PartEnd decided = part_failed(dispatch, *part, message, now);
    if (decided.kind != PartEnd::Kind::kIgnored) return decided;
  }
  // spec.minSuccess: enough replicas succeeded, whatever the others did.
  if (!others_live && min_success_met(job)) all_completed = true;
  // The job ends: completed by its last part, or failed by any part.
  for (const DispatchPart& each : dispatch.parts)
    if (each.state != PartState::kEnded) result.stop.push_back(each.cluster);
  release_dispatch(dispatch_id);
  if (job.started_ms == 0) job.started_ms = now;
  learn_runtime(job, now);
  job.phase = all_completed ? JobPhase::kCompleted : JobPhase::kFailed;
  job.finished_ms = now;
  job.dispatch = 0;
  job.edit_history().message = std::string(message);
  result.kind = PartEnd::Kind::kJobEnded;
  return result;
}

// ------------------------------------------------------------------ every part at once

void SchedulerCore::admitted(DispatchId dispatch_id, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  for (DispatchPart& part : it->second.parts)
    if (part.state == PartState::kPreparing) part.state = PartState::kAdmitted;
  commit(dispatch_id, now);
}

void SchedulerCore::rejected(DispatchId dispatch_id, std::string_view reason, TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  part_rejected(dispatch_id, it->second.parts.front().cluster, reason, now);
}

void SchedulerCore::update_tasks(DispatchId dispatch_id, std::vector<protocol::TaskStatus> tasks) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  update_tasks(dispatch_id, it->second.parts.front().cluster, std::move(tasks));
}

void SchedulerCore::finished(DispatchId dispatch_id, JobPhase phase, std::string_view message,
                             TimeMs now) {
  auto it = dispatches_.find(dispatch_id);
  if (it == dispatches_.end()) return;
  for (ClusterIndex cluster : it->second.clusters()) {
    if (part_finished(dispatch_id, cluster, phase, message, now).kind != PartEnd::Kind::kPartDone)
      return;
  }
}

}  // namespace gantry::hub
