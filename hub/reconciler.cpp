#include "hub/reconciler.hpp"

#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace gantry::hub {

namespace {

void info(Outbox& out, std::string text) {
  out.log.push_back(LogLine{LogLine::Level::kInfo, std::move(text)});
}
void warn(Outbox& out, std::string text) {
  out.log.push_back(LogLine{LogLine::Level::kWarn, std::move(text)});
}
void error(Outbox& out, std::string text) {
  out.log.push_back(LogLine{LogLine::Level::kError, std::move(text)});
}

std::vector<NodeSpec> node_specs(const protocol::UsageReport& report) {
  std::vector<NodeSpec> nodes;
  nodes.reserve(report.nodes.size());
  for (const protocol::NodeUsage& node : report.nodes) {
    nodes.push_back(NodeSpec{node.name, node.labels, ResourceVector::from_list(node.allocatable),
                             ResourceVector::from_list(node.allocated)});
  }
  return nodes;
}

// Completed / Failed from an agent's StatusUpdate phase; nullopt for others.
std::optional<JobPhase> terminal_phase(std::string_view wire_phase) {
  if (wire_phase == protocol::phase::kCompleted) return JobPhase::kCompleted;
  if (wire_phase == protocol::phase::kFailed) return JobPhase::kFailed;
  return std::nullopt;
}

}  // namespace

// ------------------------------------------------------------------ clusters

// Runs the hub knows stay; runs an earlier hub started wait for the
// cluster's usage report (which names the nodes) to be taken back; any
// other run is stopped.
void Reconciler::on_hello(const protocol::Hello& hello, TimeMs now, Outbox& out) {
  std::optional<ClusterIndex> index = core_.find_cluster(hello.cluster);
  if (!index) index = core_.add_cluster(hello.cluster, hello.labels);
  std::vector<AgentCancel> unknown;
  for (const protocol::RunningDispatch& run : hello.running) {
    const Dispatch* dispatch = core_.find_dispatch(run.dispatch_id);
    if (dispatch != nullptr && dispatch->cluster == *index) continue;
    if (dispatch == nullptr && core_.from_earlier_hub(run.dispatch_id) &&
        (recovering_ || is_pending(run.job))) {
      parked_[run.job] = ParkedRun{hello.cluster, run};
      continue;
    }
    info(out, "cluster " + hello.cluster + " still runs dispatch " +
                  std::to_string(run.dispatch_id) + " the hub does not: cancelling it");
    unknown.push_back(AgentCancel{hello.cluster, run.dispatch_id, run.job});
  }
  // Ends the hub may have missed while it was away or the link was down.
  for (const protocol::StatusUpdate& ended : hello.ended) on_status(hello.cluster, ended, now, out);
  requeue_unlisted(*index, hello, now, out);
  out.cancels.insert(out.cancels.end(), std::make_move_iterator(unknown.begin()),
                     std::make_move_iterator(unknown.end()));
}

// A job the core believes runs on the cluster but its agent does not list
// any more (the agent restarted) goes back to its queue. Dispatched jobs are
// left to the dispatcher's answer timeout: their Dispatch may still arrive.
void Reconciler::requeue_unlisted(ClusterIndex index, const protocol::Hello& hello, TimeMs now,
                                  Outbox& out) {
  std::unordered_set<DispatchId> listed;
  for (const protocol::RunningDispatch& run : hello.running) listed.insert(run.dispatch_id);
  std::vector<DispatchId> lost;
  for (const RunningKey& key : core_.dispatches_on(index)) {
    const Job& job = core_.job(core_.find_dispatch(key.dispatch)->job);
    if (job.phase == JobPhase::kRunning && !listed.count(key.dispatch))
      lost.push_back(key.dispatch);
  }
  for (DispatchId dispatch : lost) {
    const JobId job = core_.find_dispatch(dispatch)->job;
    core_.rejected(dispatch, "agent no longer runs it", now);
    out.events.push_back(
        JobEvent{job, now, "requeued: the agent on " + hello.cluster + " no longer runs it"});
    warn(out, "job " + core_.job(job).name + ": cluster " + hello.cluster +
                  " reconnected without it; requeued");
  }
  if (!lost.empty()) out.pass_wanted = true;
}

void Reconciler::on_usage(const protocol::UsageReport& report, TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(report.cluster);
  if (!index) {
    warn(out, "usage report from unknown cluster " + report.cluster + " ignored");
    return;
  }
  try {
    core_.report_usage(*index, node_specs(report), report.accounted_dispatches);
  } catch (const std::exception& e) {
    error(out, "usage report from cluster " + report.cluster + " refused: " + e.what());
    return;
  }
  if (!core_.cluster(*index).ready()) {
    core_.set_cluster_ready(*index, true, now);
    const ClusterState& cluster = core_.cluster(*index);
    info(out, "cluster " + cluster.name() + " ready: " + std::to_string(cluster.node_count()) +
                  " nodes, " + cluster.total_allocatable().to_string());
  }
  take_back_on(report.cluster, now, out);
  out.pass_wanted = true;
}

void Reconciler::on_cluster_lost(const std::string& cluster, TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return;
  const std::vector<JobId> requeued = core_.set_cluster_ready(*index, false, now);
  for (JobId id : requeued)
    out.events.push_back(JobEvent{id, now, "requeued: cluster " + cluster + " stopped answering"});
  warn(out, "cluster " + cluster + " not ready; " + std::to_string(requeued.size()) +
                " job(s) requeued");
  out.pass_wanted = true;
}

// ------------------------------------------------------------------ recovery

void Reconciler::on_restored(JobId id, TimeMs now, Outbox& out) {
  const std::string name = core_.job(id).name;
  out.events.push_back(JobEvent{id, now, "queued again after a hub restart"});
  if (const auto ended = parked_ends_.extract(name))
    ended_while_away(ended.mapped().cluster, ended.mapped().update, ended.mapped().phase, now, out);
  take_back(name, now, out);
  out.pass_wanted = true;
}

void Reconciler::end_recovery(TimeMs now, Outbox& out) {
  recovering_ = false;
  std::vector<std::string> jobs;
  for (const auto& [job, parked] : parked_) jobs.push_back(job);
  for (const std::string& job : jobs) take_back(job, now, out);
  for (const auto& [job, parked] : parked_)
    cancel_on_agent(parked.cluster, parked.run.dispatch_id, job, out);
  parked_.clear();
  parked_ends_.clear();  // of jobs the store did not have: nothing to end
  out.pass_wanted = true;
}

bool Reconciler::is_pending(const std::string& job_name) const {
  const std::optional<JobId> job = core_.find_job(job_name);
  return job && core_.job(*job).phase == JobPhase::kPending;
}

// Takes back the parked runs of `cluster` (its nodes are known now).
void Reconciler::take_back_on(const std::string& cluster, TimeMs now, Outbox& out) {
  std::vector<std::string> jobs;
  for (const auto& [job, parked] : parked_)
    if (parked.cluster == cluster) jobs.push_back(job);
  for (const std::string& job : jobs) take_back(job, now, out);
}

// Adopts the parked run of `job` once both the job (restored from the
// store) and its cluster's nodes are known; cancels it when it cannot be.
void Reconciler::take_back(const std::string& job_name, TimeMs now, Outbox& out) {
  const auto parked = parked_.find(job_name);
  if (parked == parked_.end()) return;
  const std::optional<ClusterIndex> cluster = core_.find_cluster(parked->second.cluster);
  const std::optional<JobId> job = core_.find_job(job_name);
  if (!cluster || !core_.cluster(*cluster).ready()) return;  // its report follows
  if (!job && recovering_) return;                           // its restore follows
  const protocol::RunningDispatch run = std::move(parked->second.run);
  parked_.erase(parked);
  const std::string& cluster_name = core_.cluster(*cluster).name();
  if (job && core_.adopt(*job, *cluster, run.dispatch_id, run.replicas, now)) {
    out.events.push_back(JobEvent{
        *job, now,
        "still running on " + cluster_name + " from before the hub restarted: taken back"});
    info(out, "job " + job_name + ": still running on cluster " + cluster_name + ", taken back");
    return;
  }
  cancel_on_agent(cluster_name, run.dispatch_id, job_name, out);
}

// A run an earlier hub started ended while no hub listened: its job ends
// with it instead of running again.
bool Reconciler::ended_while_away(const std::string& cluster, const protocol::StatusUpdate& update,
                                  JobPhase phase, TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  const std::optional<JobId> job = core_.find_job(update.job);
  if (!index || !core_.from_earlier_hub(update.dispatch_id)) return false;
  if (!job && recovering_) {  // its restore from the store is still on the way
    parked_ends_[update.job] = ParkedEnd{cluster, update, phase};
    return true;
  }
  if (!job || core_.job(*job).phase != JobPhase::kPending) return false;
  parked_.erase(update.job);
  core_.ended_while_away(*job, *index, phase, update.message, now);
  const std::string name(phase_name(phase));
  out.events.push_back(JobEvent{*job, now, name + " on " + cluster + " while the hub was away"});
  info(out,
       "job " + update.job + " " + name + " on cluster " + cluster + " while the hub was away");
  out.ends.push_back(JobEnd{*job, phase, now});
  return true;
}

// ------------------------------------------------------------------ agent answers

// The dispatch, if it exists and the core placed it on `cluster`.
const Dispatch* Reconciler::dispatch_on(const std::string& cluster, DispatchId id) const {
  const Dispatch* dispatch = core_.find_dispatch(id);
  if (dispatch == nullptr) return nullptr;
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  return index && *index == dispatch->cluster ? dispatch : nullptr;
}

void Reconciler::cancel_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                                 Outbox& out) {
  info(out, "cluster " + cluster + " runs dispatch " + std::to_string(id) + " (" + job +
                ") the hub no longer wants: cancelling it");
  out.cancels.push_back(AgentCancel{cluster, id, job});
}

void Reconciler::admit(JobId job, DispatchId id, const std::string& cluster, TimeMs now,
                       Outbox& out) {
  core_.admitted(id, now);
  out.events.push_back(JobEvent{job, now, "admitted by " + cluster});
  info(out, "job " + core_.job(job).name + " admitted by cluster " + cluster);
}

void Reconciler::on_admit(const std::string& cluster, const protocol::Admit& message, TimeMs now,
                          Outbox& out) {
  const Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
  if (dispatch == nullptr) {
    cancel_on_agent(cluster, message.dispatch_id, message.job, out);
    return;
  }
  const JobId job = dispatch->job;
  if (core_.job(job).phase == JobPhase::kDispatched)
    admit(job, message.dispatch_id, cluster, now, out);
}

// A reject of a dispatch that moved on (requeued, cancelled) changes nothing.
void Reconciler::on_reject(const std::string& cluster, const protocol::Reject& message, TimeMs now,
                           Outbox& out) {
  const Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
  if (dispatch == nullptr || core_.job(dispatch->job).phase != JobPhase::kDispatched) return;
  const JobId job = dispatch->job;
  core_.rejected(message.dispatch_id, message.reason, now);
  out.events.push_back(JobEvent{job, now, "rejected by " + cluster + ": " + message.reason});
  info(out,
       "job " + core_.job(job).name + " rejected by cluster " + cluster + ": " + message.reason);
  out.pass_wanted = true;
}

void Reconciler::on_status(const std::string& cluster, protocol::StatusUpdate update, TimeMs now,
                           Outbox& out) {
  const Dispatch* dispatch = dispatch_on(cluster, update.dispatch_id);
  if (dispatch == nullptr) {
    status_of_unknown_run(cluster, update, now, out);
    return;
  }
  const std::optional<JobPhase> terminal = terminal_phase(update.phase);
  const JobId job = dispatch->job;
  const DispatchId id = update.dispatch_id;
  if (core_.job(job).phase == JobPhase::kDispatched &&
      (terminal || update.phase == protocol::phase::kRunning)) {
    admit(job, id, cluster, now, out);  // its Admit was lost
  }
  if (core_.job(job).phase != JobPhase::kRunning) return;
  core_.update_tasks(id, std::move(update.tasks));
  if (terminal) {
    finish(job, id, *terminal, update.message, cluster, now, out);
  } else if (update.phase == protocol::phase::kAborted) {
    // The agent stopped it on its own: for the user that is a failure.
    finish(job, id, JobPhase::kFailed, "aborted by the agent: " + update.message, cluster, now,
           out);
  }
}

// A status of a run the core does not place on `cluster`.
void Reconciler::status_of_unknown_run(const std::string& cluster,
                                       const protocol::StatusUpdate& update, TimeMs now,
                                       Outbox& out) {
  const std::optional<JobPhase> terminal = terminal_phase(update.phase);
  if (terminal && ended_while_away(cluster, update, *terminal, now, out)) return;
  // A run waiting to be taken back reports progress: nothing to do yet.
  if (const auto parked = parked_.find(update.job);
      parked != parked_.end() && parked->second.run.dispatch_id == update.dispatch_id)
    return;
  // An end we no longer track (cancelled, requeued) needs nothing more.
  if (!terminal && update.phase != protocol::phase::kAborted)
    cancel_on_agent(cluster, update.dispatch_id, update.job, out);
}

void Reconciler::finish(JobId job, DispatchId id, JobPhase phase, const std::string& message,
                        const std::string& cluster, TimeMs now, Outbox& out) {
  core_.finished(id, phase, message, now);
  const std::string name(phase_name(phase));
  const std::string detail = message.empty() ? "" : ": " + message;
  out.events.push_back(JobEvent{job, now, name + " on " + cluster + detail});
  info(out, "job " + core_.job(job).name + " " + name + " on cluster " + cluster + detail);
  out.ends.push_back(JobEnd{job, phase, now});
  out.pass_wanted = true;
}

// ------------------------------------------------------------------ users

std::optional<std::string> Reconciler::cancel(std::string_view name, TimeMs now, Outbox& out) {
  std::optional<DispatchId> running;
  try {
    running = core_.cancel(name, now);
  } catch (const std::logic_error& refused) {  // unknown, or already ended
    return refused.what();
  }
  const JobId id = *core_.find_job(name);
  const Job& job = core_.job(id);
  // A job that had a dispatch keeps the cluster it was placed on.
  if (running)
    out.cancels.push_back(AgentCancel{core_.cluster(job.cluster).name(), *running, job.name});
  out.events.push_back(JobEvent{id, now, "cancelled"});
  info(out, "job " + job.name + " cancelled");
  out.ends.push_back(JobEnd{id, JobPhase::kAborted, now});
  out.pass_wanted = true;
  return std::nullopt;
}

}  // namespace gantry::hub
