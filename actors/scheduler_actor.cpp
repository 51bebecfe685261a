// The scheduler actor: the one owner of hub::SchedulerCore. Every other actor
// forwards what it learns here; after each change one scheduling pass is
// queued (coalesced), and its decisions go to the dispatcher as one batch.
#include <spdlog/spdlog.h>

#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/admin_replies.hpp"
#include "actors/core_views.hpp"
#include "actors/job_events.hpp"
#include "config/volcano_queue.hpp"
#include "hub/scheduler.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

using hub::JobPhase;

class Scheduler {
 public:
  Scheduler(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor dispatcher,
            caf::actor store, SchedulerSettings settings)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        dispatcher_(std::move(dispatcher)),
        store_(std::move(store)),
        core_(core_options(settings)) {
    core_.ensure_queue(kDefaultQueue);  // listed even before its first job
    if (settings.recovery_grace.count() > 0) {
      recovering_ = true;
      self_->delayed_send(self_, settings.recovery_grace, recovered_atom_v);
    }
  }

  caf::behavior behavior() {
    return {
        [this](const ReplyTo& to, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) { accept(&to, std::move(request), row, submitted_ms); },
        [this](restore_atom, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) {
          accept(nullptr, std::move(request), row, submitted_ms);
        },
        [this](const protocol::Hello& hello) { on_hello(hello); },
        [this](const protocol::UsageReport& report) { on_usage(report); },
        [this](lost_atom, const std::string& cluster) { on_lost(cluster); },
        [this](seen_atom, std::map<std::string, hub::TimeMs>& seen) {
          last_seen_ = std::move(seen);
        },
        [this](const std::string& cluster, const protocol::Admit& admit) {
          on_admit(cluster, admit);
        },
        [this](const std::string& cluster, const protocol::Reject& reject) {
          on_reject(cluster, reject);
        },
        [this](const std::string& cluster, protocol::StatusUpdate& update) {
          on_status(cluster, update);
        },
        [this](const ReplyTo& to, const protocol::ListRequest& request) { on_list(to, request); },
        [this](const ReplyTo& to, const protocol::DescribeRequest& request) {
          on_describe(to, request);
        },
        [this](const ReplyTo& to, const protocol::CancelRequest& request) {
          on_cancel(to, request);
        },
        [this](const ReplyTo& to, const protocol::ApplyRequest& request) {
          reply(to, apply_queue(request.yaml, true));
        },
        [this](restore_atom, const protocol::ApplyRequest& request) { apply_queue(request.yaml, false); },
        [this](const ReplyTo& to, const protocol::DeleteRequest& request) {
          reply(to, delete_queue(request));
        },
        [this](schedule_atom) { run_pass(); },
        [this](recovered_atom) { end_recovery(); },
    };
  }

 private:
  static hub::SchedulerOptions core_options(const SchedulerSettings& settings) {
    hub::SchedulerOptions options;
    options.first_dispatch_id = settings.first_dispatch_id;
    return options;
  }

  hub::TimeMs now() const { return clock_(); }

  // Creates or updates a queue; recorded so it outlives a restart.
  protocol::AdminResult apply_queue(const std::string& yaml, bool persist) {
    try {
      const hub::QueueSpec spec = config::parse_volcano_queue(yaml);
      const bool existed = core_.find_queue(spec.name).has_value();
      core_.apply_queue(spec);
      if (persist) self_->send(store_, persist_atom_v, spec.name, yaml);
      request_pass();  // shares moved: jobs may fit now
      return {true, "queue/" + spec.name + (existed ? " configured" : " created"), ""};
    } catch (const std::exception& e) {
      spdlog::info("queue refused: {}", e.what());
      return {false, "", e.what()};
    }
  }

  protocol::AdminResult delete_queue(const protocol::DeleteRequest& request) {
    if (request.kind != "queue")
      return {false, "", "kind: cannot delete a \"" + request.kind + "\" (only queues)"};
    try {
      core_.delete_queue(request.name);
      self_->send(store_, forget_atom_v, request.name);
      request_pass();
      return {true, "queue/" + request.name + " deleted", ""};
    } catch (const std::exception& e) {
      return {false, "", e.what()};
    }
  }

  template <class T>
  void reply(const ReplyTo& to, const T& message) {
    if (to.peer.empty()) return;
    sink_.send(OutboundFrame{Channel::kAdmin, to.peer, protocol::encode(message, to.seq), 0});
  }

  // Coalesced: however many changes arrive, at most one pass waits in the
  // mailbox. While recovering none runs: a restored job must not be placed
  // again before the agent that may still run it has said Hello.
  void request_pass() {
    if (pass_queued_ || recovering_) return;
    pass_queued_ = true;
    self_->send(self_, schedule_atom_v);
  }

  void run_pass() {
    pass_queued_ = false;
    const hub::TimeMs at = now();
    const std::vector<hub::Decision>& decisions = core_.schedule(at);
    if (decisions.empty()) return;
    std::vector<OutgoingDispatch> batch;
    std::vector<CancelOrder> evictions;
    batch.reserve(decisions.size());
    for (const hub::Decision& decision : decisions) {
      const hub::Job& job = core_.job(decision.job);
      const std::string& cluster = core_.cluster(decision.cluster).name();
      if (decision.kind == hub::Decision::Kind::kEvict) {
        // The core has already requeued the job; its agent must stop it.
        evictions.push_back(CancelOrder{cluster, decision.dispatch, job.name});
        events_.add(decision.job, at, "evicted from " + cluster + " to make room; requeued");
        spdlog::info("job {}: evicted from cluster {}", job.name, cluster);
        continue;
      }
      batch.push_back(OutgoingDispatch{cluster, decision.dispatch, job.name,
                                       protocol::encode(wire_dispatch(core_, decision))});
      events_.add(decision.job, at, "dispatched to " + cluster);
      spdlog::debug("job {}: dispatch {} to cluster {}", job.name, decision.dispatch, cluster);
    }
    // Stops first, so the evicted jobs' resources are freed before new ones start.
    if (!evictions.empty()) self_->send(dispatcher_, std::move(evictions));
    if (!batch.empty()) self_->send(dispatcher_, std::move(batch));
  }

  // ---- submissions

  // `to` is null for a job re-submitted from the store after a restart.
  void accept(const ReplyTo* to, hub::JobRequest request, std::int64_t row,
              hub::TimeMs submitted_ms) {
    const std::string name = request.name;
    hub::JobId id = 0;
    try {
      id = core_.submit(std::move(request), submitted_ms);
    } catch (const std::exception& e) {
      refuse(to, name, row, e.what());
      return;
    }
    if (id >= store_rows_.size()) store_rows_.resize(id + 1, 0);
    store_rows_[id] = row;
    events_.add(id, submitted_ms, "submitted");
    if (to) {
      spdlog::info("job {} submitted", name);
      reply(*to, protocol::SubmitJobReply{true, name, ""});
    } else {
      events_.add(id, now(), "queued again after a hub restart");
      if (const auto ended = parked_ends_.extract(name))
        ended_while_away(ended.mapped().cluster, ended.mapped().update, ended.mapped().phase);
      take_back(name);
    }
    request_pass();
  }

  void refuse(const ReplyTo* to, const std::string& name, std::int64_t row,
              const std::string& error) {
    if (to) {
      spdlog::info("job {} refused: {}", name, error);
      if (row != 0) self_->send(store_, forget_atom_v, row);
      reply(*to, protocol::SubmitJobReply{false, name, error});
    } else {
      spdlog::error("job {} from the store cannot be queued again: {}", name, error);
      self_->send(store_, finish_atom_v, row, std::string(protocol::phase::kFailed), now());
    }
  }

  void record_end(hub::JobId id, std::string_view phase) {
    const std::int64_t row = id < store_rows_.size() ? store_rows_[id] : 0;
    if (row != 0) self_->send(store_, finish_atom_v, row, std::string(phase), now());
  }

  // ---- clusters

  // Runs the hub knows stay; runs an earlier hub started wait for the
  // cluster's usage report (which names the nodes) to be taken back; any
  // other run is stopped.
  void on_hello(const protocol::Hello& hello) {
    std::optional<hub::ClusterIndex> index = core_.find_cluster(hello.cluster);
    if (!index) index = core_.add_cluster(hello.cluster, hello.labels);
    std::vector<CancelOrder> cancels;
    for (const protocol::RunningDispatch& run : hello.running) {
      const hub::Dispatch* dispatch = core_.find_dispatch(run.dispatch_id);
      if (dispatch != nullptr && dispatch->cluster == *index) continue;
      if (dispatch == nullptr && core_.from_earlier_hub(run.dispatch_id) &&
          (recovering_ || is_pending(run.job))) {
        parked_[run.job] = ParkedRun{hello.cluster, run};
        continue;
      }
      spdlog::info("cluster {} still runs dispatch {} the hub does not: cancelling it",
                   hello.cluster, run.dispatch_id);
      cancels.push_back(CancelOrder{hello.cluster, run.dispatch_id, run.job});
    }
    // Ends the hub may have missed while it was away or the link was down.
    for (protocol::StatusUpdate ended : hello.ended) on_status(hello.cluster, ended);
    requeue_unlisted(*index, hello);
    if (!cancels.empty()) self_->send(dispatcher_, std::move(cancels));
  }

  // ---- recovery after a hub restart

  bool is_pending(const std::string& job_name) const {
    const std::optional<hub::JobId> job = core_.find_job(job_name);
    return job && core_.job(*job).phase == JobPhase::kPending;
  }

  // Takes back the parked runs of `cluster` (its nodes are known now).
  void take_back_on(const std::string& cluster) {
    std::vector<std::string> jobs;
    for (const auto& [job, parked] : parked_)
      if (parked.cluster == cluster) jobs.push_back(job);
    for (const std::string& job : jobs) take_back(job);
  }

  // Adopts the parked run of `job` once both the job (restored from the
  // store) and its cluster's nodes are known; cancels it when it cannot be.
  void take_back(const std::string& job_name) {
    const auto parked = parked_.find(job_name);
    if (parked == parked_.end()) return;
    const std::optional<hub::ClusterIndex> cluster = core_.find_cluster(parked->second.cluster);
    const std::optional<hub::JobId> job = core_.find_job(job_name);
    if (!cluster || !core_.cluster(*cluster).ready()) return;  // its report follows
    if (!job && recovering_) return;                            // its restore follows
    const protocol::RunningDispatch run = std::move(parked->second.run);
    parked_.erase(parked);
    const hub::TimeMs at = now();
    if (job && core_.adopt(*job, *cluster, run.dispatch_id, run.replicas, at)) {
      events_.add(*job, at, "still running on " + core_.cluster(*cluster).name() +
                                " from before the hub restarted: taken back");
      spdlog::info("job {}: still running on cluster {}, taken back", job_name,
                   core_.cluster(*cluster).name());
      return;
    }
    cancel_on_agent(core_.cluster(*cluster).name(), run.dispatch_id, job_name);
  }

  // The grace period is over: runs nobody claimed are stopped, restored jobs
  // nobody runs are placed again.
  void end_recovery() {
    recovering_ = false;
    std::vector<std::string> jobs;
    for (const auto& [job, parked] : parked_) jobs.push_back(job);
    for (const std::string& job : jobs) take_back(job);
    for (const auto& [job, parked] : parked_) cancel_on_agent(parked.cluster, parked.run.dispatch_id, job);
    parked_.clear();
    parked_ends_.clear();  // of jobs the store did not have: nothing to end
    request_pass();
  }

  // A run an earlier hub started ended while no hub listened: its job ends
  // with it instead of running again.
  bool ended_while_away(const std::string& cluster, const protocol::StatusUpdate& update,
                        JobPhase phase) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
    const std::optional<hub::JobId> job = core_.find_job(update.job);
    if (!index || !core_.from_earlier_hub(update.dispatch_id)) return false;
    if (!job && recovering_) {  // its restore from the store is still on the way
      parked_ends_[update.job] = ParkedEnd{cluster, update, phase};
      return true;
    }
    if (!job || core_.job(*job).phase != JobPhase::kPending) return false;
    parked_.erase(update.job);
    const hub::TimeMs at = now();
    core_.ended_while_away(*job, *index, phase, update.message, at);
    const std::string_view name = hub::phase_name(phase);
    events_.add(*job, at, std::string(name) + " on " + cluster + " while the hub was away");
    spdlog::info("job {} {} on cluster {} while the hub was away", update.job, name, cluster);
    record_end(*job, name);
    return true;
  }

  // A job the core believes runs on the cluster but its agent does not list
  // any more (the agent restarted) goes back to its queue. Dispatched jobs are
  // left to the dispatcher's answer timeout: their Dispatch may still arrive.
  void requeue_unlisted(hub::ClusterIndex index, const protocol::Hello& hello) {
    std::unordered_set<hub::DispatchId> listed;
    for (const protocol::RunningDispatch& run : hello.running) listed.insert(run.dispatch_id);
    std::vector<hub::DispatchId> lost;
    for (const hub::RunningKey& key : core_.dispatches_on(index)) {
      const hub::Job& job = core_.job(core_.find_dispatch(key.dispatch)->job);
      if (job.phase == JobPhase::kRunning && !listed.count(key.dispatch)) lost.push_back(key.dispatch);
    }
    const hub::TimeMs at = now();
    for (hub::DispatchId dispatch : lost) {
      const hub::JobId job = core_.find_dispatch(dispatch)->job;
      core_.rejected(dispatch, "agent no longer runs it", at);
      events_.add(job, at, "requeued: the agent on " + hello.cluster + " no longer runs it");
      spdlog::warn("job {}: cluster {} reconnected without it; requeued", core_.job(job).name,
                   hello.cluster);
    }
    if (!lost.empty()) request_pass();
  }

  void on_usage(const protocol::UsageReport& report) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(report.cluster);
    if (!index) {
      spdlog::warn("usage report from unknown cluster {} ignored", report.cluster);
      return;
    }
    try {
      core_.report_usage(*index, node_specs(report), report.accounted_dispatches);
    } catch (const std::exception& e) {
      spdlog::error("usage report from cluster {} refused: {}", report.cluster, e.what());
      return;
    }
    if (!core_.cluster(*index).ready()) {
      core_.set_cluster_ready(*index, true, now());
      const hub::ClusterState& cluster = core_.cluster(*index);
      spdlog::info("cluster {} ready: {} nodes, {}", cluster.name(), cluster.node_count(),
                   cluster.total_allocatable().to_string());
    }
    take_back_on(report.cluster);
    request_pass();
  }

  void on_lost(const std::string& name) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(name);
    if (!index) return;
    const hub::TimeMs at = now();
    const std::vector<hub::JobId> requeued = core_.set_cluster_ready(*index, false, at);
    for (hub::JobId id : requeued) {
      events_.add(id, at, "requeued: cluster " + name + " stopped answering");
    }
    spdlog::warn("cluster {} not ready; {} job(s) requeued", name, requeued.size());
    request_pass();
  }

  // ---- agent answers

  // The dispatch, if it exists and the core placed it on `cluster`.
  const hub::Dispatch* dispatch_on(const std::string& cluster, hub::DispatchId id) const {
    const hub::Dispatch* dispatch = core_.find_dispatch(id);
    if (dispatch == nullptr) return nullptr;
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
    return index && *index == dispatch->cluster ? dispatch : nullptr;
  }

  void cancel_on_agent(const std::string& cluster, hub::DispatchId id, const std::string& job) {
    spdlog::info("cluster {} runs dispatch {} ({}) the hub no longer wants: cancelling it", cluster,
                 id, job);
    self_->send(dispatcher_, std::vector<CancelOrder>{CancelOrder{cluster, id, job}});
  }

  void admit(hub::JobId job, hub::DispatchId id, const std::string& cluster) {
    const hub::TimeMs at = now();
    core_.admitted(id, at);
    events_.add(job, at, "admitted by " + cluster);
    spdlog::info("job {} admitted by cluster {}", core_.job(job).name, cluster);
  }

  void on_admit(const std::string& cluster, const protocol::Admit& message) {
    const hub::Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
    if (dispatch == nullptr) {
      cancel_on_agent(cluster, message.dispatch_id, message.job);
      return;
    }
    const hub::JobId job = dispatch->job;
    if (core_.job(job).phase == JobPhase::kDispatched) admit(job, message.dispatch_id, cluster);
  }

  void on_reject(const std::string& cluster, const protocol::Reject& message) {
    const hub::Dispatch* dispatch = dispatch_on(cluster, message.dispatch_id);
    if (dispatch == nullptr || core_.job(dispatch->job).phase != JobPhase::kDispatched) return;
    const hub::JobId job = dispatch->job;
    const hub::TimeMs at = now();
    core_.rejected(message.dispatch_id, message.reason, at);
    events_.add(job, at, "rejected by " + cluster + ": " + message.reason);
    spdlog::info("job {} rejected by cluster {}: {}", core_.job(job).name, cluster, message.reason);
    request_pass();
  }

  void on_status(const std::string& cluster, protocol::StatusUpdate& update) {
    const std::optional<JobPhase> terminal = terminal_phase(update.phase);
    const bool aborted = update.phase == protocol::phase::kAborted;
    const hub::Dispatch* dispatch = dispatch_on(cluster, update.dispatch_id);
    if (dispatch == nullptr) {
      if (terminal && ended_while_away(cluster, update, *terminal)) return;
      // A run waiting to be taken back reports progress: nothing to do yet.
      if (const auto parked = parked_.find(update.job);
          parked != parked_.end() && parked->second.run.dispatch_id == update.dispatch_id)
        return;
      // An end we no longer track (cancelled, requeued) needs nothing more.
      if (!terminal && !aborted) cancel_on_agent(cluster, update.dispatch_id, update.job);
      return;
    }
    const hub::JobId job = dispatch->job;
    const hub::DispatchId id = update.dispatch_id;
    if (core_.job(job).phase == JobPhase::kDispatched &&
        (terminal || update.phase == protocol::phase::kRunning)) {
      admit(job, id, cluster);  // its Admit was lost
    }
    if (core_.job(job).phase != JobPhase::kRunning) return;
    core_.update_tasks(id, std::move(update.tasks));
    if (terminal) {
      finish(job, id, *terminal, update.message, cluster);
    } else if (aborted) {
      // The agent stopped it on its own: for the user that is a failure.
      finish(job, id, JobPhase::kFailed, "aborted by the agent: " + update.message, cluster);
    }
  }

  void finish(hub::JobId job, hub::DispatchId id, JobPhase phase, const std::string& message,
              const std::string& cluster) {
    const hub::TimeMs at = now();
    core_.finished(id, phase, message, at);
    const std::string_view name = hub::phase_name(phase);
    events_.add(job, at,
                std::string(name) + " on " + cluster + (message.empty() ? "" : ": " + message));
    spdlog::info("job {} {} on cluster {}{}{}", core_.job(job).name, name, cluster,
                 message.empty() ? "" : ": ", message);
    record_end(job, name);
    request_pass();
  }

  // ---- admin

  void on_list(const ReplyTo& to, const protocol::ListRequest& request) {
    reply(to, list_reply(core_, request, last_seen_));
  }

  void on_describe(const ReplyTo& to, const protocol::DescribeRequest& request) {
    reply(to, describe_reply(core_, events_, request, last_seen_));
  }

  void on_cancel(const ReplyTo& to, const protocol::CancelRequest& request) {
    reply(to, cancel(request));
  }

  protocol::AdminResult cancel(const protocol::CancelRequest& request) {
    protocol::AdminResult answer;
    if (request.kind != "job") {
      answer.error = "kind: cannot cancel a \"" + request.kind + "\" (only jobs)";
      return answer;
    }
    const std::optional<hub::JobId> id = core_.find_job(request.name);
    if (!id) {
      answer.error = "job \"" + request.name + "\" not found";
      return answer;
    }
    const JobPhase phase = core_.job(*id).phase;
    if (hub::is_terminal(phase)) {
      answer.error = "job \"" + request.name + "\" has already ended (" +
                     std::string(hub::phase_name(phase)) + ")";
      return answer;
    }
    cancel_job(*id);
    answer.ok = true;
    answer.message = "job \"" + request.name + "\" cancelled";
    return answer;
  }

  void cancel_job(hub::JobId id) {
    const std::string name = core_.job(id).name;
    const hub::Dispatch* placed = core_.find_dispatch(core_.job(id).dispatch);
    const std::string cluster = placed ? core_.cluster(placed->cluster).name() : std::string();
    const hub::TimeMs at = now();
    const std::optional<hub::DispatchId> dispatch = core_.cancel(name, at);
    if (dispatch && !cluster.empty()) {
      self_->send(dispatcher_, std::vector<CancelOrder>{CancelOrder{cluster, *dispatch, name}});
    }
    events_.add(id, at, "cancelled");
    spdlog::info("job {} cancelled", name);
    record_end(id, protocol::phase::kAborted);
    request_pass();
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  caf::actor dispatcher_;
  caf::actor store_;
  hub::SchedulerCore core_;
  JobEvents events_;
  std::vector<std::int64_t> store_rows_;  // by JobId; 0 when not stored
  LastSeen last_seen_;
  bool pass_queued_ = false;
  // After a restart: runs of an earlier hub that agents listed, by job name,
  // until they are taken back or stopped; no pass runs while recovering_.
  struct ParkedRun {
    std::string cluster;
    protocol::RunningDispatch run;
  };
  std::map<std::string, ParkedRun> parked_;
  // Ends of an earlier hub's runs whose jobs are not restored yet, by job name.
  struct ParkedEnd {
    std::string cluster;
    protocol::StatusUpdate update;
    JobPhase phase;
  };
  std::map<std::string, ParkedEnd> parked_ends_;
  bool recovering_ = false;
};

struct SchedulerState {
  std::unique_ptr<Scheduler> scheduler;
  static inline const char* name = "gantry.scheduler";
};

caf::behavior scheduler_actor(caf::stateful_actor<SchedulerState>* self, OutboundSink* sink,
                              Clock clock, caf::actor dispatcher, caf::actor store,
                              SchedulerSettings settings) {
  self->state.scheduler = std::make_unique<Scheduler>(
      self, *sink, std::move(clock), std::move(dispatcher), std::move(store), settings);
  return self->state.scheduler->behavior();
}

}  // namespace

caf::actor spawn_scheduler(caf::actor_system& system, OutboundSink& sink, Clock clock,
                           caf::actor dispatcher, caf::actor store, SchedulerSettings settings) {
  return system.spawn(scheduler_actor, &sink, std::move(clock), std::move(dispatcher),
                      std::move(store), settings);
}

}  // namespace gantry::actors
