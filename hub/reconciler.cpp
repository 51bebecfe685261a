#include "hub/reconciler.hpp"

#include <algorithm>
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
                             ResourceVector::from_list(node.allocated), node.taints});
  }
  return nodes;
}

// The GPUs of every node in one list: what the hub shows needs no node names.
ObservedUsage observed_usage(const protocol::UsageReport& report) {
  ObservedUsage usage{report.scores, {}, report.fit_note};
  for (const protocol::NodeUsage& node : report.nodes)
    usage.gpus.insert(usage.gpus.end(), node.gpus.begin(), node.gpus.end());
  return usage;
}

// A run its agent stopped itself, cut off from the hub (self-fencing): it
// ends Failed with the event PodEvicted, which is an eviction to the hub.
bool is_fence(const protocol::StatusUpdate& update, JobPhase ended) {
  return ended == JobPhase::kFailed && update.event == protocol::policy_event::kPodEvicted;
}

// Completed / Failed from an agent's StatusUpdate phase; nullopt for others.
std::optional<JobPhase> terminal_phase(std::string_view wire_phase) {
  if (wire_phase == protocol::phase::kCompleted) return JobPhase::kCompleted;
  if (wire_phase == protocol::phase::kFailed) return JobPhase::kFailed;
  return std::nullopt;
}

std::string seconds(TimeMs ms) {
  const TimeMs tenths = (ms + 50) / 100;
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") +
         " s";
}

}  // namespace

// ------------------------------------------------------------------ clusters

// Parts the hub knows there stay; parts of an earlier hub's dispatch wait for
// the cluster's usage report (which names the nodes) to be taken back; any
// other run is stale (its job moved on) and is stopped.
void Reconciler::on_hello(const protocol::Hello& hello, TimeMs now, Outbox& out) {
  const ClusterIndex index =
      core_.add_cluster(hello.cluster, hello.labels);  // its labels may have changed
  // What the agent no longer lists has ended or gone with it.
  std::erase_if(held_, [&](const auto& entry) { return entry.first.first == hello.cluster; });
  for (const protocol::RunningDispatch& run : hello.running) {
    const Dispatch* dispatch = core_.find_dispatch(run.dispatch_id);
    if (dispatch != nullptr && dispatch->part_on(index) != nullptr) continue;
    if (dispatch == nullptr && of_other_state(run.dispatch_id)) {
      hold(hello.cluster, run, out);
      continue;
    }
    if (dispatch == nullptr && core_.from_earlier_hub(run.dispatch_id) &&
        (recovering_ || is_pending(run.job))) {
      ParkedDispatch& parked = parked_[run.dispatch_id];
      parked.job = run.job;
      parked.parts[hello.cluster] = run;
      continue;
    }
    fence(hello.cluster, run, now, out);
  }
  // Ends the hub may have missed while it was away or the link was down.
  for (const protocol::StatusUpdate& ended : hello.ended) on_status(hello.cluster, ended, now, out);
  requeue_unlisted(index, hello, now, out);
}

// A run from before this hub's state was made: the hub cannot tell it from a
// job it would run itself, so it neither stops it nor counts it as its own.
void Reconciler::hold(const std::string& cluster, const protocol::RunningDispatch& run,
                      Outbox& out) {
  held_[{cluster, run.dispatch_id}] = run;
  warn(out, "cluster " + cluster + " runs dispatch " + std::to_string(run.dispatch_id) + " (job " +
                run.job +
                ") from before this hub's state was made: held, not stopped. It runs on until it "
                "ends; `gantryctl drain cluster " +
                cluster + "` stops it (and cordons the cluster)");
}

// The end of a held run releases its hold; nothing else follows from it.
bool Reconciler::held_run_ended(const std::string& cluster, const protocol::StatusUpdate& update,
                                Outbox& out) {
  const auto found = held_.find({cluster, update.dispatch_id});
  if (found == held_.end()) return false;
  if (terminal_phase(update.phase) || update.phase == protocol::phase::kAborted) {
    info(out, "held dispatch " + std::to_string(update.dispatch_id) + " (job " + update.job +
                  ") on cluster " + cluster + " ended: " + update.phase);
    held_.erase(found);
  }
  return true;
}

void Reconciler::stop_held_on(const std::string& cluster, Outbox& out) {
  for (auto held = held_.begin(); held != held_.end();) {
    if (held->first.first != cluster) {
      ++held;
      continue;
    }
    const protocol::RunningDispatch& run = held->second;
    if (run.committed) {
      out.cancels.push_back(AgentCancel{cluster, run.dispatch_id, run.job, ""});
    } else {
      out.aborts.push_back(
          AgentCancel{cluster, run.dispatch_id, run.job, "cluster " + cluster + " drained"});
    }
    info(out, "held dispatch " + std::to_string(run.dispatch_id) + " (job " + run.job +
                  ") on cluster " + cluster + " stopped: the cluster was drained");
    held = held_.erase(held);
  }
}

// A run whose dispatch is not its job's current one (the job was requeued
// and maybe placed elsewhere, cancelled, or ended): it must not run on.
void Reconciler::fence(const std::string& cluster, const protocol::RunningDispatch& run, TimeMs now,
                       Outbox& out) {
  const std::optional<JobId> job = core_.find_job(run.job);
  if (job) {
    const Job& current = core_.job(*job);
    const std::string where = current.dispatch != 0 && current.cluster != kNoCluster
                                  ? "; it now runs under dispatch " +
                                        std::to_string(current.dispatch) + " on " +
                                        core_.cluster(current.cluster).name()
                                  : "";
    out.events.push_back(JobEvent{*job, now,
                                  "stale copy on " + cluster + " (dispatch " +
                                      std::to_string(run.dispatch_id) +
                                      ") stopped: its job has moved on" + where});
  }
  warn(out, "cluster " + cluster + " still holds dispatch " + std::to_string(run.dispatch_id) +
                " (" + run.job + ") that is no longer its job's: stopping it");
  if (run.committed) {
    out.cancels.push_back(AgentCancel{cluster, run.dispatch_id, run.job, ""});
  } else {
    out.aborts.push_back(
        AgentCancel{cluster, run.dispatch_id, run.job, "no longer the job's dispatch"});
  }
}

// A part the core believes is held on the cluster but its agent does not
// list any more (the agent restarted) is gone: its dispatch is given up and
// the job requeued. Parts still being prepared are left to the prepare
// timeout: their Prepare may still arrive.
void Reconciler::requeue_unlisted(ClusterIndex index, const protocol::Hello& hello, TimeMs now,
                                  Outbox& out) {
  std::unordered_set<DispatchId> listed;
  for (const protocol::RunningDispatch& run : hello.running) listed.insert(run.dispatch_id);
  std::vector<DispatchId> lost;
  for (const RunningKey& key : core_.dispatches_on(index)) {
    const DispatchPart* part = core_.find_dispatch(key.dispatch)->part_on(index);
    if (part->state != PartState::kPreparing && part->state != PartState::kEnded &&
        !listed.count(key.dispatch))
      lost.push_back(key.dispatch);
  }
  for (DispatchId id : lost) {
    const Dispatch& dispatch = *core_.find_dispatch(id);
    const JobId job = dispatch.job;
    const bool committed = dispatch.committed;
    const std::vector<ClusterIndex> others =
        core_.part_rejected(id, index, "agent no longer holds it", now);
    stop_parts(id, core_.job(job).name, committed, others, "another part was lost", out);
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
  if (!report.not_ready_reason.empty()) {
    agent_not_ready(*index, report.not_ready_reason, out);
    return;
  }
  try {
    core_.report_usage(*index, node_specs(report), report.accounted_dispatches);
    core_.record_observed_usage(*index, observed_usage(report));
  } catch (const std::exception& e) {
    error(out, "usage report from cluster " + report.cluster + " refused: " + e.what());
    return;
  }
  if (!core_.cluster(*index).ready()) {
    core_.set_cluster_ready(*index, true);
    const ClusterState& cluster = core_.cluster(*index);
    info(out, "cluster " + cluster.name() + " ready: " + std::to_string(cluster.node_count()) +
                  " nodes, " + cluster.total_allocatable().to_string());
  }
  reported_.insert(report.cluster);
  take_back_on(report.cluster, now, out);
  out.pass_wanted = true;
}

// Its nodes are not known yet: nothing of the report is taken, and runs of an
// earlier hub wait for a report that names the nodes.
void Reconciler::agent_not_ready(ClusterIndex index, const std::string& reason, Outbox& out) {
  const ClusterState& cluster = core_.cluster(index);
  if (!cluster.ready() && cluster.agent_not_ready_reason() == reason) return;
  core_.set_agent_not_ready(index, reason);
  info(out, "cluster " + cluster.name() + " not ready: its agent says " + reason);
}

void Reconciler::on_cluster_silent(const std::string& cluster, TimeMs /*now*/, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index || !core_.cluster(*index).ready()) return;
  core_.set_cluster_ready(*index, false);
  warn(out, "cluster " + cluster + " not ready: its agent is silent past its lease; " +
                std::to_string(core_.dispatches_on(*index).size()) +
                " dispatch(es) there keep their place until the lost grace runs out");
}

void Reconciler::on_cluster_heard(const std::string& cluster, TimeMs /*now*/, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index || core_.cluster(*index).ready() || !core_.cluster(*index).reported() ||
      !core_.cluster(*index).agent_not_ready_reason().empty())
    return;
  core_.set_cluster_ready(*index, true);
  info(out, "cluster " + cluster + " ready again: its agent answers");
  out.pass_wanted = true;
}

void Reconciler::on_cluster_lost(const std::string& cluster, TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return;
  const std::vector<WithdrawnDispatch> requeued = core_.cluster_lost(*index, now);
  std::erase_if(held_, [&](const auto& entry) { return entry.first.first == cluster; });
  withdrawn(requeued, "cluster " + cluster + " was lost (silent past the lost grace)", now, out);
  carry_out_lifecycle(now, out);  // JobUnknown policies
  warn(out,
       "cluster " + cluster + " lost; " + std::to_string(requeued.size()) + " job(s) requeued");
  out.pass_wanted = true;
}

// Each withdrawn dispatch's job is back in its queue: its other parts are
// stopped (a lost cluster's own part is stopped when it returns: fence()).
void Reconciler::withdrawn(const std::vector<WithdrawnDispatch>& dispatches, const std::string& why,
                           TimeMs now, Outbox& out) {
  for (const WithdrawnDispatch& each : dispatches) {
    out.events.push_back(JobEvent{each.job, now, "requeued: " + why});
    stop_parts(each.dispatch, core_.job(each.job).name, true, each.clusters, why, out);
  }
}

std::optional<std::string> Reconciler::cordon(std::string_view cluster, bool cordoned,
                                              TimeMs /*now*/, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return "cluster \"" + std::string(cluster) + "\" not found";
  core_.set_cordoned(*index, cordoned);
  info(out, "cluster " + std::string(cluster) + (cordoned ? " cordoned" : " uncordoned"));
  out.pass_wanted = true;
  return std::nullopt;
}

std::optional<std::string> Reconciler::drain(std::string_view cluster, TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return "cluster \"" + std::string(cluster) + "\" not found";
  const std::string name(cluster);
  const std::vector<WithdrawnDispatch> stopping = core_.drain(*index, now);
  for (const WithdrawnDispatch& each : stopping) {
    const bool moved =
        core_.find_dispatch(each.dispatch) == nullptr;  // never started: requeued at once
    out.events.push_back(
        JobEvent{each.job, now,
                 moved ? "requeued: cluster " + name + " was drained"
                       : "stopping: cluster " + name + " is drained; placed again once stopped"});
    stop_parts(each.dispatch, core_.job(each.job).name, !moved, each.clusters,
               "cluster " + name + " drained", out);
  }
  carry_out_lifecycle(now, out);  // PodEvicted policies of dispatches that never started
  stop_held_on(name, out);
  info(out, "cluster " + name + " drained: cordoned, " + std::to_string(stopping.size()) +
                " job(s) stopping");
  out.pass_wanted = true;
  return std::nullopt;
}

// ------------------------------------------------------------------ recovery

void Reconciler::on_restored(JobId id, const RestoredDispatch* record, TimeMs now, Outbox& out) {
  const std::string name = core_.job(id).name;
  if (record) records_[name] = *record;
  out.events.push_back(JobEvent{id, now, "queued again after a hub restart"});
  if (const auto ended = parked_ends_.extract(name))
    ended_while_away(ended.mapped().cluster, ended.mapped().update, ended.mapped().phase, now, out);
  std::vector<DispatchId> ids;
  for (const auto& [dispatch, parked] : parked_)
    if (parked.job == name) ids.push_back(dispatch);
  for (DispatchId dispatch : ids) take_back(dispatch, now, out);
  out.pass_wanted = true;
}

std::vector<std::string> Reconciler::clusters_awaited() const {
  std::set<std::string> awaited;
  for (const auto& [job, record] : records_) {
    if (!record.committed || !is_pending(job)) continue;
    for (const std::string& cluster : record.clusters)
      if (!reported_.count(cluster)) awaited.insert(cluster);
  }
  return {awaited.begin(), awaited.end()};
}

void Reconciler::end_recovery(TimeMs now, Outbox& out) {
  recovering_ = false;
  std::vector<DispatchId> ids;
  for (const auto& [dispatch, parked] : parked_) ids.push_back(dispatch);
  for (DispatchId dispatch : ids) take_back(dispatch, now, out);
  for (const auto& [dispatch, parked] : parked_) release_parked(dispatch, parked, out);
  parked_.clear();
  parked_ends_.clear();  // of jobs the store did not have: nothing to end
  out.pass_wanted = true;
}

bool Reconciler::is_pending(const std::string& job_name) const {
  const std::optional<JobId> job = core_.find_job(job_name);
  return job && core_.job(*job).phase == JobPhase::kPending;
}

const RestoredDispatch* Reconciler::record_of(const std::string& job) const {
  const auto found = records_.find(job);
  return found == records_.end() ? nullptr : &found->second;
}

// Takes back the parked dispatches with a part on `cluster` (its nodes are known now).
void Reconciler::take_back_on(const std::string& cluster, TimeMs now, Outbox& out) {
  std::vector<DispatchId> ids;
  for (const auto& [dispatch, parked] : parked_)
    if (parked.parts.count(cluster)) ids.push_back(dispatch);
  for (DispatchId dispatch : ids) take_back(dispatch, now, out);
}

// Adopts a parked dispatch once its job is back from the store and every
// part it needs is listed on a cluster whose nodes are known; releases it
// when it cannot be (its job ended, moved on, or the earlier hub never
// committed it). Waits while something it needs may still come.
void Reconciler::take_back(DispatchId id, TimeMs now, Outbox& out) {
  const auto parked = parked_.find(id);
  if (parked == parked_.end()) return;
  const std::string& name = parked->second.job;
  const std::optional<JobId> job = core_.find_job(name);
  if (!job && recovering_) return;  // its restore follows
  const RestoredDispatch* record = record_of(name);
  const bool current = job && core_.job(*job).phase == JobPhase::kPending &&
                       (record == nullptr ? parked->second.parts.size() == 1
                                          : record->id == id && record->committed);
  if (current) {
    const std::size_t expected = record ? record->clusters.size() : 1;
    if (parked->second.parts.size() < expected && recovering_)
      return;  // other parts' Hellos follow
    for (const auto& [cluster, run] : parked->second.parts) {
      const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
      if (!index || !core_.cluster(*index).ready()) return;  // its usage report follows
    }
    if (parked->second.parts.size() == expected &&
        adopt(parked->second, id, *job, record, now, out)) {
      parked_.erase(parked);
      return;
    }
  }
  const ParkedDispatch released = std::move(parked->second);
  parked_.erase(parked);
  release_parked(id, released, out);
}

bool Reconciler::adopt(const ParkedDispatch& parked, DispatchId id, JobId job,
                       const RestoredDispatch* record, TimeMs now, Outbox& out) {
  std::vector<AdoptedPart> parts;
  bool every_part_started = true;
  std::string clusters;
  for (const auto& [cluster, run] : parked.parts) {
    parts.push_back(AdoptedPart{*core_.find_cluster(cluster), run.part, &run.replicas});
    every_part_started = every_part_started && run.committed;
    clusters += (clusters.empty() ? "" : ", ") + cluster;
  }
  if (!core_.adopt(job, id, parts, now)) return false;
  // `record` points into records_: read it before the entry goes.
  if (record) core_.set_rendezvous(id, record->rendezvous_host, record->rendezvous_port);
  records_.erase(parked.job);
  // The earlier hub decided the commit; a part that never heard it hears it now.
  if (!every_part_started) out.commits.push_back(id);
  out.events.push_back(JobEvent{
      job, now, "still running on " + clusters + " from before the hub restarted: taken back"});
  info(out, "job " + parked.job + ": still running on cluster(s) " + clusters + ", taken back");
  return true;
}

void Reconciler::release_parked(DispatchId id, const ParkedDispatch& parked, Outbox& out) {
  for (const auto& [cluster, run] : parked.parts) {
    if (run.committed) {
      cancel_on_agent(cluster, id, parked.job, out);
    } else {
      abort_on_agent(cluster, id, parked.job, "the hub restarted before committing it", out);
    }
  }
}

// A run an earlier hub started ended while no hub listened: its job ends
// with it instead of running again. A failed part fails the job; a completed
// part of a split dispatch ends it only with its other parts listed ended too
// (otherwise the job runs again whole).
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
  const RestoredDispatch* record = record_of(update.job);
  // Only the run the hub recorded for this job on this cluster: an agent
  // cannot end another cluster's run, or a dispatch it guessed.
  if (!record || record->id != update.dispatch_id ||
      std::find(record->clusters.begin(), record->clusters.end(), cluster) ==
          record->clusters.end())
    return false;
  if (phase == JobPhase::kCompleted && record && record->id == update.dispatch_id &&
      record->clusters.size() > 1)
    return false;  // one part of several: the job is placed again whole
  if (const auto parked = parked_.find(update.dispatch_id); parked != parked_.end()) {
    const ParkedDispatch others = std::move(parked->second);
    parked_.erase(parked);
    release_parked(update.dispatch_id, others, out);
  }
  records_.erase(update.job);
  if (is_fence(update, phase)) {
    core_.fenced_while_away(*job, *index, now);
    const std::string why = "its run on " + cluster + " was fenced while the hub was away";
    out.events.push_back(JobEvent{*job, now, "requeued: " + why + ": " + update.message});
    info(out, "job " + update.job + ": " + why + "; requeued");
    carry_out_lifecycle(now, out);  // a PodEvicted policy
    out.pass_wanted = true;
    return true;
  }
  core_.ended_while_away(*job, *index, phase, update.message, now);
  const std::string name(phase_name(phase));
  out.events.push_back(JobEvent{*job, now, name + " on " + cluster + " while the hub was away"});
  info(out,
       "job " + update.job + " " + name + " on cluster " + cluster + " while the hub was away");
  out.ends.push_back(JobEnd{*job, phase, now});
  return true;
}

// ------------------------------------------------------------------ agent answers

// The dispatch, if it exists and has a part on `cluster`.
const Dispatch* Reconciler::dispatch_on(const std::string& cluster, DispatchId id) const {
  const Dispatch* dispatch = core_.find_dispatch(id);
  if (dispatch == nullptr) return nullptr;
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  return index && dispatch->part_on(*index) != nullptr ? dispatch : nullptr;
}

void Reconciler::cancel_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                                 Outbox& out) {
  info(out, "cluster " + cluster + " runs dispatch " + std::to_string(id) + " (" + job +
                ") the hub no longer wants: cancelling it");
  out.cancels.push_back(AgentCancel{cluster, id, job, ""});
}

void Reconciler::abort_on_agent(const std::string& cluster, DispatchId id, const std::string& job,
                                const std::string& reason, Outbox& out) {
  info(out, "cluster " + cluster + " holds dispatch " + std::to_string(id) + " (" + job +
                ") uncommitted: aborting it (" + reason + ")");
  out.aborts.push_back(AgentCancel{cluster, id, job, reason});
}

void Reconciler::stop_parts(DispatchId id, const std::string& job, bool committed,
                            const std::vector<ClusterIndex>& clusters, const std::string& reason,
                            Outbox& out) {
  for (ClusterIndex cluster : clusters) {
    const std::string& name = core_.cluster(cluster).name();
    if (committed) {
      out.cancels.push_back(AgentCancel{name, id, job, reason});
    } else {
      out.aborts.push_back(AgentCancel{name, id, job, reason});
    }
  }
}

void Reconciler::on_resized(const std::string& cluster, const protocol::Resized& resized,
                            TimeMs now, Outbox& out) {
  const std::optional<ClusterIndex> index = core_.find_cluster(cluster);
  const Dispatch* dispatch = core_.find_dispatch(resized.dispatch_id);
  if (!index || dispatch == nullptr) return;
  const JobId job = dispatch->job;
  if (!core_.resize_answered(resized.dispatch_id, *index, resized.elastic_epoch, resized.admitted,
                             now))
    return;
  const std::int32_t world = core_.find_dispatch(resized.dispatch_id)->world_size;
  out.events.push_back(
      JobEvent{job, now,
               resized.admitted
                   ? "elastic: grew to " + std::to_string(world) + " replica(s) (elastic epoch " +
                         std::to_string(resized.elastic_epoch) + ")"
                   : "elastic: growth refused by " + cluster + ": " + resized.reason});
  info(out, "job " + core_.job(job).name + ": elastic growth " +
                (resized.admitted ? "admitted" : "refused") + " by cluster " + cluster);
  out.pass_wanted = true;
}

void Reconciler::on_admit(const std::string& cluster, const protocol::Admit& message, TimeMs now,
                          Outbox& out) {
  const Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
  if (dispatch == nullptr) {  // moved on (requeued, cancelled) or never ours: release it
    abort_on_agent(cluster, message.dispatch_id, message.job, "the dispatch is no longer wanted",
                   out);
    return;
  }
  const JobId job = dispatch->job;
  const std::size_t parts = dispatch->parts.size();
  const AdmitOutcome outcome =
      core_.part_admitted(message.dispatch_id, *core_.find_cluster(cluster),
                          message.rendezvous_host, message.rendezvous_port, now);
  if (outcome == AdmitOutcome::kIgnored) return;  // a duplicate, or already committed
  if (outcome == AdmitOutcome::kWaitingForParts) {
    out.events.push_back(
        JobEvent{job, now, "part on " + cluster + " admitted; waiting for the other parts"});
    return;
  }
  core_.commit(message.dispatch_id, now);
  out.commits.push_back(message.dispatch_id);
  std::string clusters;
  for (ClusterIndex c : core_.find_dispatch(message.dispatch_id)->clusters())
    clusters += (clusters.empty() ? "" : ", ") + core_.cluster(c).name();
  out.events.push_back(JobEvent{job, now,
                                parts == 1 ? "admitted by " + cluster + "; committed"
                                           : "every part admitted; committed on " + clusters});
  info(out, "job " + core_.job(job).name + " committed on cluster(s) " + clusters);
}

// A reject of a part that moved on (requeued, cancelled, ended) changes nothing.
void Reconciler::on_reject(const std::string& cluster, const protocol::Reject& message, TimeMs now,
                           Outbox& out) {
  const Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
  if (dispatch == nullptr) return;
  const ClusterIndex index = *core_.find_cluster(cluster);
  const PartState state = dispatch->part_on(index)->state;
  if (state == PartState::kEnded || state == PartState::kStopping) return;
  const JobId job = dispatch->job;
  const bool committed = dispatch->committed;
  const std::vector<ClusterIndex> others =
      core_.part_rejected(message.dispatch_id, index, message.reason, now);
  stop_parts(message.dispatch_id, core_.job(job).name, committed, others,
             "the part on " + cluster + " was rejected", out);
  const TimeMs until = core_.backed_off_until(job, index);
  out.events.push_back(JobEvent{job, now,
                                "rejected by " + cluster + ": " + message.reason + "; " + cluster +
                                    " is not tried again for it for " + seconds(until - now)});
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
  if (!dispatch->committed) return;  // an agent starts nothing before Commit
  const ClusterIndex index = *core_.find_cluster(cluster);
  const DispatchId id = update.dispatch_id;
  core_.update_tasks(id, index, std::move(update.tasks));
  note_waiting(cluster, *dispatch, update, now, out);
  core_.check_tasks_completed(id, now);  // TaskCompleted policies
  carry_out_lifecycle(now, out);
  dispatch = dispatch_on(cluster, id);
  if (dispatch == nullptr) return;
  if (update.event == protocol::policy_event::kPodFailed)
    core_.note_part_failure(id, index, update.task, update.replica, update.exit_code);
  const std::optional<JobPhase> terminal = terminal_phase(update.phase);
  if (terminal && is_fence(update, *terminal)) {
    part_fenced(cluster, id, update.message, now, out);
  } else if (terminal) {
    part_ended(cluster, id, *terminal, update.message, now, out);
  } else if (update.phase == protocol::phase::kAborted) {
    // The agent stopped it: asked to (drain), or on its own, which for the
    // user is a failure.
    const bool asked = dispatch->part_on(index)->state == PartState::kStopping;
    part_ended(cluster, id, JobPhase::kFailed,
               asked ? update.message : "aborted by the agent: " + update.message, now, out);
  }
}

// A committed part whose agent reports it Pending with a reason waits on
// its cluster (its pods are not running); the job shows it, and its run
// counts from when the last waiting part runs.
void Reconciler::note_waiting(const std::string& cluster, const Dispatch& dispatch,
                              const protocol::StatusUpdate& update, TimeMs now, Outbox& out) {
  const ClusterIndex index = *core_.find_cluster(cluster);
  const DispatchPart* part = dispatch.part_on(index);
  if (part == nullptr) return;
  const bool pending = update.phase == protocol::phase::kPending;
  std::string waiting = pending ? update.message : "";
  if (part->waiting == waiting) return;
  const JobId job = dispatch.job;
  const bool was_waiting = !part->waiting.empty();
  if (!waiting.empty() && !was_waiting)
    out.events.push_back(JobEvent{job, now, "waiting on " + cluster + ": " + waiting});
  if (core_.note_part_waiting(dispatch.id, index, std::move(waiting), now))
    out.events.push_back(JobEvent{job, now, "running: every replica runs"});
}

// The agent stopped the part itself, cut off from the hub longer than its
// fence timeout (protocol/lease_timing.hpp): as Volcano does with an evicted
// pod, the job is placed again, not failed (unless a PodEvicted policy says so).
void Reconciler::part_fenced(const std::string& cluster, DispatchId id, const std::string& message,
                             TimeMs now, Outbox& out) {
  const ClusterIndex index = *core_.find_cluster(cluster);
  const std::vector<WithdrawnDispatch> requeued = core_.part_fenced(id, index, now);
  withdrawn(requeued, "its run on " + cluster + " was fenced: " + message, now, out);
  carry_out_lifecycle(now, out);  // a PodEvicted policy
  for (const WithdrawnDispatch& each : requeued)
    info(out, "job " + core_.job(each.job).name + ": its run on cluster " + cluster +
                  " was fenced by its agent; requeued");
  out.pass_wanted = true;
}

void Reconciler::part_ended(const std::string& cluster, DispatchId id, JobPhase phase,
                            const std::string& message, TimeMs now, Outbox& out) {
  const JobId job = core_.find_dispatch(id)->job;
  const ClusterIndex index = *core_.find_cluster(cluster);
  const PartEnd end = core_.part_finished(id, index, phase, message, now);
  switch (end.kind) {
    case PartEnd::Kind::kIgnored:
      return;
    case PartEnd::Kind::kPartDone:
      out.events.push_back(JobEvent{job, now,
                                    "part on " + cluster + " " + std::string(phase_name(phase)) +
                                        "; waiting for the other parts"});
      return;
    case PartEnd::Kind::kRequeued:
      out.events.push_back(
          JobEvent{job, now, "stopped on " + cluster + "; requeued to be placed elsewhere"});
      info(out,
           "job " + core_.job(job).name + " stopped on cluster " + cluster + " (drain); requeued");
      out.pass_wanted = true;
      return;
    case PartEnd::Kind::kLifecycle:
      carry_out_lifecycle(now, out);
      return;
    case PartEnd::Kind::kJobEnded:
      break;
  }
  const JobPhase ended = core_.job(job).phase;
  const std::string name(phase_name(ended));
  const std::string detail = message.empty() ? "" : ": " + message;
  stop_parts(id, core_.job(job).name, true, end.stop, "the part on " + cluster + " failed", out);
  out.events.push_back(JobEvent{job, now, name + " on " + cluster + detail});
  info(out, "job " + core_.job(job).name + " " + name + " on cluster " + cluster + detail);
  out.ends.push_back(JobEnd{job, ended, now});
  out.pass_wanted = true;
}

// A status of a run the core does not place on `cluster`: an earlier hub's
// run that ended while it was away, a run waiting to be taken back, or a
// stale run, which is stopped and whose end changes nothing.
void Reconciler::status_of_unknown_run(const std::string& cluster,
                                       const protocol::StatusUpdate& update, TimeMs now,
                                       Outbox& out) {
  if (held_run_ended(cluster, update, out)) return;
  const std::optional<JobPhase> terminal = terminal_phase(update.phase);
  if (terminal && ended_while_away(cluster, update, *terminal, now, out)) return;
  if (const auto parked = parked_.find(update.dispatch_id);
      parked != parked_.end() && parked->second.parts.count(cluster))
    return;
  if (!terminal && update.phase != protocol::phase::kAborted)
    cancel_on_agent(cluster, update.dispatch_id, update.job, out);
}

// ------------------------------------------------------------------ lifecycle policies

void Reconciler::carry_out_lifecycle(TimeMs now, Outbox& out) {
  core_.take_lifecycle_steps(steps_);
  for (const LifecycleStep& step : steps_) {
    const std::string& name = core_.job(step.job).name;
    stop_parts(step.dispatch, name, true, step.stop, step.text, out);
    out.events.push_back(JobEvent{step.job, now, step.text});
    info(out, "job " + name + ": " + step.text);
    if (is_terminal(step.phase)) out.ends.push_back(JobEnd{step.job, step.phase, now});
    out.pass_wanted = true;
  }
}

// ------------------------------------------------------------------ users

std::optional<std::string> Reconciler::cancel(std::string_view name, TimeMs now, Outbox& out) {
  const std::optional<JobId> found = core_.find_job(name);
  const Dispatch* dispatch = found ? core_.find_dispatch(core_.job(*found).dispatch) : nullptr;
  const bool committed = dispatch != nullptr && dispatch->committed;
  std::vector<ClusterIndex> clusters;
  if (dispatch != nullptr)
    for (const DispatchPart& part : dispatch->parts)
      if (part.state != PartState::kEnded) clusters.push_back(part.cluster);
  std::optional<DispatchId> running;
  try {
    running = core_.cancel(name, now);
  } catch (const std::logic_error& refused) {  // unknown, or already ended
    return refused.what();
  }
  const JobId id = *found;
  const Job& job = core_.job(id);
  if (running) stop_parts(*running, job.name, committed, clusters, "cancelled", out);
  out.events.push_back(JobEvent{id, now, "cancelled"});
  info(out, "job " + job.name + " cancelled");
  out.ends.push_back(JobEnd{id, JobPhase::kAborted, now});
  out.pass_wanted = true;
  return std::nullopt;
}

}  // namespace gantry::hub
