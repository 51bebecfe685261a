#include "agents/agent_core.hpp"

#include <algorithm>

#include "agents/dispatch_gang.hpp"
#include "hub/field_error.hpp"

namespace gantry::agents {

namespace {

// Answers kept for dispatches that are over, to recognise late duplicates.
constexpr std::size_t kRememberedFinished = 4096;

std::vector<DispatchId> sorted_ids(
    const std::unordered_map<DispatchId, std::unique_ptr<DispatchRun>>& runs) {
  std::vector<DispatchId> ids;
  ids.reserve(runs.size());
  for (const auto& [id, run] : runs) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

AgentCore::AgentCore(std::string cluster, const config::Inventory& inventory, Executor& executor)
    : cluster_(std::move(cluster)),
      labels_(inventory.cluster_labels),
      executor_(executor),
      nodes_(cluster_, inventory) {}

void AgentCore::on_dispatch(const protocol::Dispatch& dispatch, TimeMs now, Outbox& out) {
  if (const auto answered = answers_.find(dispatch.dispatch_id); answered != answers_.end()) {
    replay_answer(dispatch.dispatch_id, answered->second, out);
    return;
  }
  if (std::string why = executor_.check(dispatch.job); !why.empty()) {
    reject(dispatch, std::move(why), out);
    return;
  }
  DispatchGang gang;
  try {
    gang = gang_for_dispatch(dispatch);
  } catch (const hub::FieldError& e) {
    reject(dispatch, e.what(), out);
    return;
  }
  std::vector<hub::NodeAssignment> assignment;
  const Admission admission = nodes_.admit(gang.shape, assignment);
  if (!admission.admitted) {
    reject(dispatch, admission.reason, out);
    return;
  }
  std::vector<RunReplica> replicas = replicas_for(assignment, gang.job_task);
  admit(dispatch, std::move(replicas), std::move(assignment), now, out);
}

void AgentCore::on_cancel(const protocol::Cancel& cancel, Outbox& out) {
  const auto found = runs_.find(cancel.dispatch_id);
  if (found == runs_.end()) return;  // already over: its final status was sent
  DispatchRun& run = *found->second;
  run.cancel();
  stop_live_replicas(run);
  report_progress(run, out);
}

void AgentCore::on_exits(const std::vector<ReplicaExit>& exits, Outbox& out) {
  changed_.clear();
  for (const ReplicaExit& exit : exits) {
    const auto found = runs_.find(exit.key.dispatch);
    if (found == runs_.end()) continue;
    found->second->exited(exit.key.rank, exit.exit_code, exit.signal);
    if (std::find(changed_.begin(), changed_.end(), exit.key.dispatch) == changed_.end()) {
      changed_.push_back(exit.key.dispatch);
    }
  }
  for (DispatchId id : changed_) {
    DispatchRun& run = *runs_.at(id);
    if (run.ending()) stop_live_replicas(run);
    report_progress(run, out);
  }
}

void AgentCore::forget_finished() {
  for (DispatchId id : finished_order_) {
    answers_.erase(id);
    final_status_.erase(id);
  }
  finished_order_.clear();
}

protocol::Hello AgentCore::hello(const std::string& agent_version) const {
  protocol::Hello hello{cluster_, labels_, agent_version, {}, {}};
  for (DispatchId id : finished_order_)
    if (const auto status = final_status_.find(id); status != final_status_.end())
      hello.ended.push_back(status->second);
  for (DispatchId id : sorted_ids(runs_)) {
    const DispatchRun& run = *runs_.at(id);
    protocol::RunningDispatch& running = hello.running.emplace_back();
    running.dispatch_id = id;
    running.job = run.job().name;
    for (const RunReplica& replica : run.replicas())
      running.replicas.push_back(protocol::PlacedReplica{run.job().tasks[replica.task].name, replica.node});
  }
  return hello;
}

protocol::UsageReport AgentCore::usage_report() const {
  protocol::UsageReport report;
  nodes_.fill_usage(report);
  report.accounted_dispatches = sorted_ids(runs_);
  return report;
}

const DispatchRun* AgentCore::find_run(DispatchId id) const {
  const auto found = runs_.find(id);
  return found == runs_.end() ? nullptr : found->second.get();
}

void AgentCore::reject(const protocol::Dispatch& dispatch, std::string reason, Outbox& out) {
  out.messages.push_back(protocol::Reject{dispatch.dispatch_id, dispatch.job.name, reason});
  remember(dispatch.dispatch_id, Answer{false, dispatch.job.name, std::move(reason)});
  mark_over(dispatch.dispatch_id);
}

void AgentCore::admit(const protocol::Dispatch& dispatch, std::vector<RunReplica> replicas,
                      std::vector<hub::NodeAssignment> assignment, TimeMs now, Outbox& out) {
  const DispatchId id = dispatch.dispatch_id;
  auto spec = std::make_shared<const protocol::JobSpec>(dispatch.job);
  auto owned = std::make_unique<DispatchRun>(id, spec, std::move(replicas), std::move(assignment));
  DispatchRun& run = *runs_.emplace(id, std::move(owned)).first->second;
  out.messages.push_back(protocol::Admit{id, dispatch.job.name});
  out.usage_changed = true;
  remember(id, Answer{true, dispatch.job.name, ""});
  start_replicas(run, now);
  if (run.ending()) stop_live_replicas(run);
  report_progress(run, out);
}

// Stops at the first replica that cannot start: the gang is failed anyway.
void AgentCore::start_replicas(DispatchRun& run, TimeMs now) {
  ReplicaLaunch launch;
  launch.job = &run.job();
  launch.world_size = static_cast<std::int32_t>(run.replicas().size());
  try {
    launch.rendezvous_port = executor_.pick_rendezvous_port();
  } catch (const std::exception& e) {
    run.failed_to_start(0, e.what());
  }
  for (std::uint32_t rank = 0; rank < run.replicas().size() && !run.ending(); ++rank) {
    const RunReplica& replica = run.replicas()[rank];
    launch.key = ReplicaKey{run.id(), rank};
    launch.task = replica.task;
    launch.index = replica.index;
    launch.node = replica.node;
    try {
      executor_.start(launch, now);
      run.started(rank);
    } catch (const std::exception& e) {
      run.failed_to_start(rank, e.what());
    }
  }
}

// Ranks follow the tasks in spec order (the shape keeps that order), and each
// task's replicas are numbered from 0 in the order the placer put them.
std::vector<RunReplica> AgentCore::replicas_for(const std::vector<hub::NodeAssignment>& assignment,
                                                const std::vector<std::uint32_t>& job_task) const {
  std::vector<RunReplica> replicas;
  replicas.reserve(assignment.size());
  for (std::uint32_t shape_task = 0; shape_task < job_task.size(); ++shape_task) {
    std::int32_t index = 0;
    for (const hub::NodeAssignment& placed : assignment) {
      if (placed.task != shape_task) continue;
      RunReplica replica;
      replica.task = job_task[shape_task];
      replica.index = index++;
      replica.node = nodes_.node_name(placed.node);
      replicas.push_back(std::move(replica));
    }
  }
  return replicas;
}

void AgentCore::stop_live_replicas(DispatchRun& run) {
  for (std::uint32_t rank = 0; rank < run.replicas().size(); ++rank) {
    if (run.is_unstopped(rank) && run.stopping(rank)) executor_.kill(ReplicaKey{run.id(), rank});
  }
}

// One final StatusUpdate per dispatch, sent only once none of its replicas is
// left: the hub hears Failed or Aborted when the gang's processes are gone, so
// a retry cannot meet the remains of the previous attempt.
void AgentCore::report_progress(DispatchRun& run, Outbox& out) {
  if (!run.finished() && run.ending()) return;
  protocol::StatusUpdate update;
  run.fill_status(update);
  if (run.finished()) final_status_[run.id()] = update;
  out.messages.push_back(std::move(update));
  if (!run.finished()) return;
  nodes_.release(run.assignment());
  out.usage_changed = true;
  mark_over(run.id());
  runs_.erase(run.id());
}

void AgentCore::remember(DispatchId id, Answer answer) {
  answers_[id] = std::move(answer);
}

void AgentCore::mark_over(DispatchId id) {
  finished_order_.push_back(id);
  while (finished_order_.size() > kRememberedFinished) {
    answers_.erase(finished_order_.front());
    final_status_.erase(finished_order_.front());
    finished_order_.pop_front();
  }
}

void AgentCore::replay_answer(DispatchId id, const Answer& answer, Outbox& out) const {
  if (answer.admitted) {
    out.messages.push_back(protocol::Admit{id, answer.job});
  } else {
    out.messages.push_back(protocol::Reject{id, answer.job, answer.reason});
  }
}

}  // namespace gantry::agents
