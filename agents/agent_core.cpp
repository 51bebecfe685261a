#include "agents/agent_core.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "agents/dispatch_gang.hpp"
#include "agents/job_plugins.hpp"
#include "agents/task_dependencies.hpp"
#include "hub/duration.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"

namespace gantry::agents {

namespace {

// Answers kept for dispatches that are over, to recognise late duplicates.
constexpr std::size_t kRememberedFinished = 4096;
constexpr const char* kLoopback = "127.0.0.1";
constexpr std::int32_t kMaxPort = 65535;

// Saturates: a limit that would pass the clock's end is no limit, not an overflow.
TimeMs deadline_after(TimeMs now, TimeMs limit_ms) {
  TimeMs deadline = 0;
  if (__builtin_add_overflow(now, limit_ms, &deadline)) return std::numeric_limits<TimeMs>::max();
  return deadline;
}

std::string dispatch_text(DispatchId id) {
  return "dispatch " + std::to_string(id);
}

}  // namespace

AgentCore::AgentCore(std::string cluster, const config::Inventory& inventory, Executor& executor,
                     AgentCoreOptions options)
    : cluster_(std::move(cluster)),
      labels_(inventory.cluster_labels),
      executor_(executor),
      options_(std::move(options)),
      nodes_(cluster_, inventory) {}

AgentCore::AgentCore(std::string cluster, protocol::Labels labels, Executor& executor,
                     AgentCoreOptions options)
    : cluster_(std::move(cluster)),
      labels_(labels),
      executor_(executor),
      options_(std::move(options)),
      nodes_(cluster_, std::move(labels)) {}

void AgentCore::update_nodes(const std::vector<protocol::NodeUsage>& nodes, Outbox& out) {
  nodes_.update_nodes(nodes);
  out.usage_changed = true;
}

void AgentCore::adopt(const std::vector<AdoptedReplica>& replicas) {
  std::map<DispatchId, std::vector<AdoptedReplica>> by_dispatch;
  for (const AdoptedReplica& replica : replicas)
    by_dispatch[replica.key.dispatch].push_back(replica);
  for (auto& [id, run_replicas] : by_dispatch) {
    std::sort(run_replicas.begin(), run_replicas.end(),
              [](const auto& a, const auto& b) { return a.key.rank < b.key.rank; });
    adopt_run(run_replicas);
  }
}

// The job's spec is what the pods say of it: its name and its tasks in rank
// order (ranks follow the tasks in spec order), enough for statuses and the
// Hello; nothing is started again.
void AgentCore::adopt_run(const std::vector<AdoptedReplica>& replicas) {
  auto job = std::make_shared<protocol::JobSpec>();
  job->name = replicas.front().job;
  std::vector<RunReplica> run_replicas;
  for (const AdoptedReplica& adopted : replicas) {
    if (job->tasks.empty() || job->tasks.back().name != adopted.task) {
      job->tasks.emplace_back();
      job->tasks.back().name = adopted.task;
      job->tasks.back().replicas = 0;
    }
    ++job->tasks.back().replicas;
    run_replicas.push_back(RunReplica{static_cast<std::uint32_t>(job->tasks.size() - 1),
                                      adopted.task_index, adopted.node, ReplicaState::kPending, 0});
  }
  PartPlan plan;
  plan.part = replicas.front().part;
  plan.parts = replicas.front().parts;
  const DispatchId id = replicas.front().key.dispatch;
  auto owned = std::make_unique<DispatchRun>(id, std::move(job), std::move(run_replicas),
                                             std::vector<hub::NodeAssignment>{}, plan);
  DispatchRun& run = *runs_.emplace(id, std::move(owned)).first->second;
  stop_if_cut_short(run, replicas);
  for (std::uint32_t rank = 0; rank < replicas.size(); ++rank) {
    run.started(rank);
    if (replicas[rank].ended) run.exited(rank, replicas[rank].exit_code, 0, replicas[rank].fenced);
  }
  Outbox unsent;  // the Hello lists the run, or repeats its end
  if (run.ending()) stop_live_replicas(run);
  report_progress(run, unsent);
}

// Replicas queued for a start that the agent's end cut off were never
// recorded: the gang would wait for them forever. Stopped as a fence stops a
// part (whatever its replicas did), the job is placed again, whole.
void AgentCore::stop_if_cut_short(DispatchRun& run, const std::vector<AdoptedReplica>& replicas) {
  std::int32_t part_replicas = 0;
  for (const AdoptedReplica& adopted : replicas)
    part_replicas = std::max(part_replicas, adopted.part_replicas);
  const auto found = static_cast<std::int32_t>(replicas.size());
  if (part_replicas <= found) return;
  run.fenced("the agent ended before it started every replica of this part (" +
             std::to_string(found) + " of " + std::to_string(part_replicas) +
             " started): the part is stopped and the job placed again");
}

void AgentCore::set_placement_scores(const protocol::PlacementScores& scores, Outbox& out) {
  scores_ = scores;
  out.usage_changed = true;
}

void AgentCore::set_not_ready_reason(std::string reason, Outbox& out) {
  not_ready_reason_ = std::move(reason);
  out.usage_changed = true;
}

void AgentCore::on_prepare(const protocol::Prepare& prepare, TimeMs now, Outbox& out) {
  expire_holds(now, out);  // what ran out is free for this part
  if (const auto answered = answers_.find(prepare.dispatch_id); answered != answers_.end()) {
    out.messages.push_back(answered->second);
    return;
  }
  if (std::any_of(parked_.begin(), parked_.end(), [&](const ParkedPrepare& parked) {
        return parked.prepare.dispatch_id == prepare.dispatch_id;
      }))
    return;  // a repeat: answered when the room is free
  if (std::string why = executor_.check(prepare.job); !why.empty()) {
    reject(prepare, std::move(why), out);
    return;
  }
  if (std::string why = executor_.check_split(prepare.job, prepare.parts); !why.empty()) {
    reject(prepare, std::move(why), out);
    return;
  }
  PreparedPart part;
  if (std::string why = place_part(prepare, part); !why.empty()) {
    if (room_is_being_freed()) {
      parked_.push_back(ParkedPrepare{prepare, now + options_.prepare_hold_ms});
      return;
    }
    reject(prepare, std::move(why), out);
    return;
  }
  part.hold_until = now + options_.prepare_hold_ms;
  hold(prepare, std::move(part), out);
}

// A run that is stopping, or that ended and is about to give its room back
// (exits are reported run by run).
bool AgentCore::room_is_being_freed() const {
  return std::any_of(runs_.begin(), runs_.end(), [](const auto& entry) {
    return entry.second->ending() || entry.second->finished();
  });
}

// A run ended and gave its room back: each parked Prepare is admitted if it
// fits now, refused if nothing more will be freed, else waits on.
void AgentCore::answer_parked(Outbox& out) {
  if (parked_.empty()) return;
  std::vector<ParkedPrepare> waiting;
  for (ParkedPrepare& parked : parked_) {
    PreparedPart part;
    std::string why = place_part(parked.prepare, part);
    if (why.empty()) {
      part.hold_until = parked.until;
      hold(parked.prepare, std::move(part), out);
    } else if (!room_is_being_freed()) {
      reject(parked.prepare, std::move(why), out);
    } else {
      waiting.push_back(std::move(parked));
    }
  }
  parked_ = std::move(waiting);
}

// An Abort or Cancel of a parked Prepare: it is refused, and holds nothing.
bool AgentCore::drop_parked(DispatchId id, const std::string& why) {
  const auto found = std::find_if(parked_.begin(), parked_.end(), [&](const ParkedPrepare& p) {
    return p.prepare.dispatch_id == id;
  });
  if (found == parked_.end()) return false;
  const protocol::Prepare prepare = std::move(found->prepare);
  parked_.erase(found);
  answers_[id] =
      protocol::Reject{id, prepare.job.name, dispatch_text(id) + ": " + why, prepare.part};
  mark_over(id);
  return true;
}

std::optional<TimeMs> AgentCore::next_hold_deadline() const {
  std::optional<TimeMs> next = prepared_.next_deadline();
  for (const ParkedPrepare& parked : parked_)
    if (!next || parked.until < *next) next = parked.until;
  return next;
}

std::string AgentCore::place_part(const protocol::Prepare& prepare, PreparedPart& part) {
  DispatchGang gang;
  try {
    gang = gang_for_part(prepare);
    part.plan = part_plan(prepare);
    part.plan.member_queue = prepare.member_queue;
  } catch (const hub::FieldError& e) {
    return e.what();
  }
  const Admission admission = nodes_.admit(gang.shape, part.assignment, prepare.nodes,
                                           gang.tiers.value_or(hub::TopologyTiers{}));
  if (!admission.admitted) return admission.reason;
  part.id = prepare.dispatch_id;
  part.job = std::make_shared<const protocol::JobSpec>(prepare.job);
  part.replicas = replicas_for(part.assignment, gang.job_task, prepare);
  // In rank order (replicas_for's), so that assignment[rank] is what replica
  // `rank` holds: an elastic shrink frees exactly the replicas it stops.
  std::stable_sort(
      part.assignment.begin(), part.assignment.end(),
      [](const hub::NodeAssignment& a, const hub::NodeAssignment& b) { return a.task < b.task; });
  // A whole gang admitted with fewer replicas than asked (min_available) is
  // a smaller world; a split part always has all of them.
  const auto placed = static_cast<std::int32_t>(part.replicas.size());
  part.plan.world_size = part.plan.world_size == 0
                             ? placed
                             : part.plan.world_size - (gang.shape.total_replicas() - placed);
  return "";
}

void AgentCore::on_commit(const protocol::Commit& commit, TimeMs now, Outbox& out) {
  expire_holds(now, out);  // a Commit after the deadline finds nothing held
  if (std::optional<PreparedPart> part = prepared_.take(commit.dispatch_id)) {
    start_part(std::move(*part), commit, now, out);
    return;
  }
  answer_unheld_commit(commit, out);
}

void AgentCore::on_abort(const protocol::Abort& abort, Outbox& out) {
  const std::string why =
      abort.reason.empty() ? "aborted by the hub" : "aborted by the hub: " + abort.reason;
  if (drop_parked(abort.dispatch_id, why)) return;
  if (std::optional<PreparedPart> part = prepared_.take(abort.dispatch_id)) {
    release(*part, dispatch_text(abort.dispatch_id) + ": " + why, out);
    return;
  }
  stop_run(abort.dispatch_id, why, out);  // unknown or over: nothing to do
}

void AgentCore::on_cancel(const protocol::Cancel& cancel, Outbox& out) {
  if (drop_parked(cancel.dispatch_id, "cancelled by the hub before its commit")) return;
  if (std::optional<PreparedPart> part = prepared_.take(cancel.dispatch_id)) {
    release(*part, dispatch_text(cancel.dispatch_id) + ": cancelled by the hub before its commit",
            out);
    return;
  }
  stop_run(cancel.dispatch_id, "cancelled by the hub", out);
}

void AgentCore::on_exits(const std::vector<ReplicaExit>& exits, Outbox& out) {
  changed_.clear();
  for (const ReplicaExit& exit : exits) {
    const auto found = runs_.find(exit.key.dispatch);
    if (found == runs_.end()) continue;
    DispatchRun& run = *found->second;
    if (exit.not_started.empty()) {
      run.exited(exit.key.rank, exit.exit_code, exit.signal, exit.fenced);
    } else {
      run.failed_to_start(exit.key.rank, exit.not_started);
    }
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

void AgentCore::expire_holds(TimeMs now, Outbox& out) {
  for (auto it = parked_.begin(); it != parked_.end();) {
    if (it->until > now) {
      ++it;
      continue;
    }
    reject(it->prepare,
           "no room within " + std::to_string(options_.prepare_hold_ms) +
               " ms: the runs stopped here still hold it",
           out);
    it = parked_.erase(it);
  }
  if (prepared_.size() == 0) return;
  expired_.clear();
  prepared_.take_expired(now, expired_);
  for (const PreparedPart& part : expired_) {
    out.warnings.push_back(
        dispatch_text(part.id) + " (job " + part.job->name + "): part " +
        std::to_string(part.plan.part) + " was admitted but not committed within " +
        std::to_string(options_.prepare_hold_ms) + " ms; its resources are released");
    release(part, dispatch_text(part.id) + ": prepared part expired before its commit", out);
  }
}

void AgentCore::expire_time_limits(TimeMs now, Outbox& out) {
  overdue_.clear();
  deadlines_.take_due(now, overdue_);
  for (DispatchId id : overdue_) {
    const auto found = runs_.find(id);
    if (found == runs_.end()) continue;
    DispatchRun& run = *found->second;
    const std::string limit = hub::format_duration(run.plan().time_limit_ms);
    out.warnings.push_back(dispatch_text(id) + " (job " + run.job().name + "): ran past its " +
                           limit + " time limit; stopping its replicas");
    run.time_limit_reached("time limit (" + limit + ")");
    stop_live_replicas(run);
    report_progress(run, out);
  }
}

void AgentCore::fence(const std::string& message, Outbox& out) {
  changed_.clear();
  for (const auto& [id, run] : runs_) changed_.push_back(id);
  for (DispatchId id : changed_) {
    DispatchRun& run = *runs_.at(id);
    run.fenced(message);
    stop_live_replicas(run);
    report_progress(run, out);  // may end the run
  }
}

void AgentCore::forget_finished() {
  for (DispatchId id : finished_order_) answers_.erase(id);
  for (DispatchId id : in_last_hello_) final_status_.erase(id);
  in_last_hello_.clear();
  std::erase_if(finished_order_, [&](DispatchId id) { return !final_status_.count(id); });
}

protocol::Hello AgentCore::hello(const std::string& agent_version) const {
  protocol::Hello hello{cluster_, labels_, agent_version, {}, {}};
  in_last_hello_.clear();
  for (DispatchId id : finished_order_) {
    if (const auto status = final_status_.find(id); status != final_status_.end()) {
      hello.ended.push_back(status->second);
      in_last_hello_.push_back(id);
    }
  }
  const auto list = [&](DispatchId id, const protocol::JobSpec& job,
                        const std::vector<RunReplica>& replicas, const PartPlan& plan,
                        bool committed) {
    protocol::RunningDispatch& running = hello.running.emplace_back();
    running.dispatch_id = id;
    running.job = job.name;
    for (const RunReplica& replica : replicas)
      running.replicas.push_back(
          protocol::PlacedReplica{job.tasks[replica.task].name, replica.node});
    running.part = plan.part;
    running.parts = plan.parts;
    running.committed = committed;
  };
  for (DispatchId id : held_ids()) {
    if (const DispatchRun* run = find_run(id)) {
      list(id, run->job(), run->replicas(), run->plan(), true);
    } else if (const PreparedPart* part = prepared_.find(id)) {
      list(id, *part->job, part->replicas, part->plan, false);
    }
  }
  return hello;
}

protocol::UsageReport AgentCore::usage_report() const {
  protocol::UsageReport report;
  nodes_.fill_usage(report);
  report.accounted_dispatches = held_ids();
  report.scores = scores_;
  report.not_ready_reason = not_ready_reason_;
  return report;
}

bool AgentCore::runs_job(const std::string& job) const {
  return std::any_of(runs_.begin(), runs_.end(),
                     [&](const auto& run) { return run.second->job().name == job; });
}

const DispatchRun* AgentCore::find_run(DispatchId id) const {
  const auto found = runs_.find(id);
  return found == runs_.end() ? nullptr : found->second.get();
}

std::vector<DispatchId> AgentCore::held_ids() const {
  std::vector<DispatchId> ids;
  ids.reserve(runs_.size() + prepared_.size());
  for (const auto& [id, run] : runs_) ids.push_back(id);
  prepared_.append_ids(ids);
  std::sort(ids.begin(), ids.end());
  return ids;
}

void AgentCore::reject(const protocol::Prepare& prepare, std::string reason, Outbox& out) {
  const protocol::Reject reject{prepare.dispatch_id, prepare.job.name, std::move(reason),
                                prepare.part};
  out.messages.push_back(reject);
  answers_[prepare.dispatch_id] = reject;
  mark_over(prepare.dispatch_id);
}

// Part 0 names the gang's rendezvous: every replica of every part meets at
// this agent's address, on a port its executor picks now.
void AgentCore::hold(const protocol::Prepare& prepare, PreparedPart part, Outbox& out) {
  protocol::Admit admit{part.id, prepare.job.name, prepare.part, "", 0};
  if (prepare.part == 0) {
    try {
      admit.rendezvous_port = executor_.pick_rendezvous_port();
    } catch (const std::exception& e) {
      nodes_.release(part.assignment);
      reject(prepare, std::string("no port for the gang's rendezvous: ") + e.what(), out);
      return;
    }
    admit.rendezvous_host = options_.advertise_address;
  }
  out.messages.push_back(admit);
  answers_[part.id] = admit;
  out.usage_changed = true;
  prepared_.add(std::move(part));
}

// Whatever asks for it later (a duplicate Prepare, a late Commit) hears that
// nothing of the part is held.
void AgentCore::release(const PreparedPart& part, std::string reason, Outbox& out) {
  nodes_.release(part.assignment);
  out.usage_changed = true;
  answers_[part.id] = protocol::Reject{part.id, part.job->name, std::move(reason), part.plan.part};
  mark_over(part.id);
}

// A repeated Commit of a running part hears its progress again (one of an
// ending part its final status, which follows by itself), one of a part that
// ended its final status; one of a part not held here a Reject.
void AgentCore::answer_unheld_commit(const protocol::Commit& commit, Outbox& out) const {
  const DispatchId id = commit.dispatch_id;
  if (const DispatchRun* run = find_run(id)) {
    if (run->ending()) return;
    protocol::StatusUpdate update;
    run->fill_status(update);
    out.messages.push_back(std::move(update));
    return;
  }
  if (const auto ended = final_status_.find(id); ended != final_status_.end()) {
    out.messages.push_back(ended->second);
    return;
  }
  std::string reason = dispatch_text(id) + ": not prepared here";
  if (const auto answered = answers_.find(id); answered != answers_.end()) {
    if (const auto* rejected = std::get_if<protocol::Reject>(&answered->second))
      reason = rejected->reason;
  }
  out.messages.push_back(protocol::Reject{id, commit.job, std::move(reason), commit.part});
}

void AgentCore::start_part(PreparedPart part, const protocol::Commit& commit, TimeMs now,
                           Outbox& out) {
  const DispatchId id = part.id;
  auto owned = std::make_unique<DispatchRun>(id, std::move(part.job), std::move(part.replicas),
                                             std::move(part.assignment), part.plan);
  DispatchRun& run = *runs_.emplace(id, std::move(owned)).first->second;
  // A part whose executor says when its replicas run is limited from then on,
  // and handed back if they wait too long.
  if (!executor_.reports_running()) {
    start_time_limit(run, now);
  } else {
    waiting_.add(id, options_.pending_give_up_ms > 0
                         ? deadline_after(now, options_.pending_give_up_ms)
                         : std::numeric_limits<TimeMs>::max());
  }
  run.set_rendezvous(commit.master_addr.empty() ? kLoopback : commit.master_addr,
                     static_cast<std::uint16_t>(std::clamp(commit.master_port, 0, kMaxPort)));
  write_elastic_state(run, out);
  start_replicas(run, commit, now);
  if (run.ending()) stop_live_replicas(run);
  report_progress(run, out);
}

// Stops at the first replica that cannot start: the gang is failed anyway.
void AgentCore::start_replicas(DispatchRun& run, const protocol::Commit& commit, TimeMs now) {
  ReplicaLaunch launch = launch_of(run);
  launch.master_addr = commit.master_addr.empty() ? kLoopback : commit.master_addr;
  if (commit.master_port < 0 || commit.master_port > kMaxPort) {
    run.failed_to_start(
        0, "commit.master_port: " + std::to_string(commit.master_port) + " is not a TCP port");
  }
  launch.master_port = static_cast<std::uint16_t>(std::clamp(commit.master_port, 0, kMaxPort));
  // The plugins name this agent's replicas by its address (the process
  // executor's replicas all run on its machine).
  const ReplicaHosts hosts =
      run.job().plugins.empty() ? ReplicaHosts{}
                                : part_hosts(run.job(), run.replicas(), options_.advertise_address);
  if (!run.job().plugins.empty()) launch.replica_hosts = &hosts;
  // dependsOn: a task's replicas start once the tasks it names run, so pass
  // after pass; what never may start stays Pending, its resources held.
  TaskStartGate gate(run.job(), run.replicas());
  std::vector<bool> tried(run.replicas().size(), false);
  std::size_t waiting = run.replicas().size();
  for (bool progress = true; progress && waiting > 0 && !run.ending();) {
    progress = false;
    for (std::uint32_t rank = 0; rank < run.replicas().size() && !run.ending(); ++rank) {
      const RunReplica& replica = run.replicas()[rank];
      if (tried[rank] || !gate.may_start(replica.task)) continue;
      tried[rank] = true;
      progress = true;
      --waiting;
      if (start_replica(run, launch, rank, now)) gate.running(replica.task);
    }
  }
  if (!run.ending() && waiting == 0) executor_.started_all(run.id(), now);
}

void AgentCore::stop_run(DispatchId id, std::string message, Outbox& out) {
  const auto found = runs_.find(id);
  if (found == runs_.end()) return;  // already over: its final status was sent
  DispatchRun& run = *found->second;
  run.cancel(std::move(message));
  stop_live_replicas(run);
  report_progress(run, out);
}

// Ranks follow the tasks in spec order (the shape keeps that order), and each
// task's replicas are numbered in the order the nodes were taken, from the
// index of the part's first replica of that task over every part.
std::vector<RunReplica> AgentCore::replicas_for(const std::vector<hub::NodeAssignment>& assignment,
                                                const std::vector<std::uint32_t>& job_task,
                                                const protocol::Prepare& prepare) const {
  std::vector<RunReplica> replicas;
  replicas.reserve(assignment.size());
  for (std::uint32_t shape_task = 0; shape_task < job_task.size(); ++shape_task) {
    const auto offset =
        prepare.task_index_offsets.find(prepare.job.tasks[job_task[shape_task]].name);
    std::int32_t index = offset == prepare.task_index_offsets.end() ? 0 : offset->second;
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
  deadlines_.remove(run.id());
  waiting_.remove(run.id());
  runs_.erase(run.id());  // `run` is gone
  answer_parked(out);
}

void AgentCore::mark_over(DispatchId id) {
  finished_order_.push_back(id);
  while (finished_order_.size() > kRememberedFinished) {
    answers_.erase(finished_order_.front());
    final_status_.erase(finished_order_.front());
    finished_order_.pop_front();
  }
}

// ------------------------------------------------------------------ elastic runs

namespace {

// Replicas of each job task still in the part (not released by a shrink),
// and the next index each task would give a replica added here.
struct TaskMembers {
  std::vector<std::int32_t> count;
  std::vector<std::int32_t> next_index;
};

TaskMembers task_members(const DispatchRun& run) {
  TaskMembers members;
  members.count.assign(run.job().tasks.size(), 0);
  members.next_index.assign(run.job().tasks.size(), 0);
  for (std::uint32_t rank = 0; rank < run.replicas().size(); ++rank) {
    if (run.released(rank)) continue;
    const RunReplica& replica = run.replicas()[rank];
    ++members.count[replica.task];
    members.next_index[replica.task] =
        std::max(members.next_index[replica.task], replica.index + 1);
  }
  return members;
}

std::int32_t wanted_replicas(const protocol::Resize& resize, const std::string& task,
                             std::int32_t otherwise) {
  const auto found = resize.task_replicas.find(task);
  return found == resize.task_replicas.end() ? otherwise : found->second;
}

}  // namespace

void AgentCore::on_resize(const protocol::Resize& resize, TimeMs now, Outbox& out) {
  protocol::Resized answer{resize.dispatch_id,   resize.job, resize.part,
                           resize.elastic_epoch, false,      ""};
  const auto found = runs_.find(resize.dispatch_id);
  if (found == runs_.end() || found->second->ending()) {
    answer.reason = dispatch_text(resize.dispatch_id) + " is not running here";
    out.messages.push_back(std::move(answer));
    return;
  }
  DispatchRun& run = *found->second;
  const TaskMembers members = task_members(run);
  bool grows = false;
  bool same_size = true;
  for (std::size_t t = 0; t < run.job().tasks.size(); ++t) {
    const std::int32_t wanted = wanted_replicas(resize, run.job().tasks[t].name, members.count[t]);
    grows = grows || wanted > members.count[t];
    same_size = same_size && wanted == members.count[t];
  }
  // A repeated Resize: already done. (An older epoch asking another size
  // comes from a restarted hub, which counts epochs afresh: it is carried out.)
  if (resize.elastic_epoch <= run.elastic_epoch() && same_size) {
    answer.admitted = true;
    out.messages.push_back(std::move(answer));
    return;
  }
  if (grows) {
    std::vector<std::uint32_t> added;
    answer.reason = grow_run(run, resize, added);
    answer.admitted = answer.reason.empty();
    if (answer.admitted) {
      write_elastic_state(run, out);
      start_added(run, added, now);
    }
  } else {
    shrink_run(run, resize);
    write_elastic_state(run, out);
    answer.admitted = true;
  }
  if (answer.admitted) out.usage_changed = true;
  out.messages.push_back(std::move(answer));
  if (run.ending()) stop_live_replicas(run);
  report_progress(run, out);
}

// Admits every added replica on the live nodes (the hub's nodes as hints),
// all or none, and adds them to the run, pending; "" once they are held.
std::string AgentCore::grow_run(DispatchRun& run, const protocol::Resize& resize,
                                std::vector<std::uint32_t>& added) {
  const protocol::JobSpec& job = run.job();
  TaskMembers members = task_members(run);
  hub::GangShape shape;
  std::vector<std::uint32_t> job_task;
  try {
    for (std::uint32_t t = 0; t < job.tasks.size(); ++t) {
      const protocol::TaskSpec& task = job.tasks[t];
      const std::int32_t wanted = wanted_replicas(resize, task.name, members.count[t]);
      if (wanted <= members.count[t]) continue;
      if (wanted > task.replicas)
        throw hub::FieldError(
            "task_replicas[" + task.name + "]", std::to_string(wanted),
            "is more than the task's " + std::to_string(task.replicas) + " replicas");
      hub::TaskShape& added_task = shape.tasks.emplace_back();
      added_task.name = task.name;
      added_task.replicas = wanted - members.count[t];
      added_task.per_replica = hub::replica_request(task, "job.tasks[" + std::to_string(t) + "]");
      added_task.node_selector = task.node_selector;
      added_task.tolerations = task.tolerations;
      job_task.push_back(t);
    }
  } catch (const hub::FieldError& e) {
    return e.what();
  }
  shape.min_available = shape.total_replicas();  // every added replica, or none
  std::vector<hub::NodeAssignment> assignment;
  const Admission admission = nodes_.admit(shape, assignment, resize.nodes);
  if (!admission.admitted) return admission.reason;
  std::stable_sort(
      assignment.begin(), assignment.end(),
      [](const hub::NodeAssignment& a, const hub::NodeAssignment& b) { return a.task < b.task; });
  run.resized(resize.elastic_epoch, resize.world_size);
  for (const hub::NodeAssignment& entry : assignment) {
    RunReplica replica;
    replica.task = job_task[entry.task];
    replica.index = members.next_index[replica.task]++;
    replica.node = nodes_.node_name(entry.node);
    added.push_back(run.add_replica(std::move(replica), entry));
  }
  return "";
}

// The added replicas take the next ranks of the part and meet where the
// gang already meets; they see the new elastic epoch and world size.
void AgentCore::start_added(DispatchRun& run, const std::vector<std::uint32_t>& added, TimeMs now) {
  ReplicaLaunch launch = launch_of(run);
  launch.master_addr = run.master_addr();
  launch.master_port = run.master_port();
  for (std::uint32_t rank : added)
    if (!start_replica(run, launch, rank, now)) return;
  executor_.started_all(run.id(), now);
}

// What every replica of the run's part shares; where the gang meets is the caller's.
ReplicaLaunch AgentCore::launch_of(const DispatchRun& run) const {
  const PartPlan& plan = run.plan();
  ReplicaLaunch launch;
  launch.job = &run.job();
  launch.world_size = plan.world_size;
  launch.part_replicas = static_cast<std::int32_t>(run.replicas().size());
  launch.cluster = cluster_;
  launch.epoch = plan.epoch;
  launch.part = plan.part;
  launch.parts = plan.parts;
  launch.elastic_epoch = run.elastic_epoch();
  launch.elastic_state = elastic_state_path(run);
  launch.member_queue = run.plan().member_queue;
  return launch;
}

// Fills in who replica `rank` is and starts it; false (the run failing) when
// the executor cannot.
bool AgentCore::start_replica(DispatchRun& run, ReplicaLaunch& launch, std::uint32_t rank,
                              TimeMs now) {
  const RunReplica& replica = run.replicas()[rank];
  launch.key = ReplicaKey{run.id(), rank};
  launch.rank = run.plan().rank_offset + static_cast<std::int32_t>(rank);
  launch.task = replica.task;
  launch.index = replica.index;
  launch.node = replica.node;
  launch.node_hostname = nodes_.node_label(replica.node, "kubernetes.io/hostname");
  try {
    executor_.start(launch, now);
  } catch (const std::exception& e) {
    run.failed_to_start(rank, e.what());
    return false;
  }
  if (executor_.reports_running()) {
    run.launched(rank);
  } else {
    run.started(rank);
  }
  return true;
}

void AgentCore::start_time_limit(const DispatchRun& run, TimeMs now) {
  if (run.plan().time_limit_ms > 0)
    deadlines_.add(run.id(), deadline_after(now, run.plan().time_limit_ms));
}

void AgentCore::on_progress(const std::vector<ReplicaProgress>& progress, TimeMs now, Outbox& out) {
  changed_.clear();
  for (const ReplicaProgress& each : progress) {
    const auto found = runs_.find(each.key.dispatch);
    if (found == runs_.end() || each.key.rank >= found->second->replicas().size()) continue;
    DispatchRun& run = *found->second;
    if (each.running) {
      run.started(each.key.rank);
    } else {
      run.waiting(each.key.rank, each.reason);
    }
    if (std::find(changed_.begin(), changed_.end(), run.id()) == changed_.end())
      changed_.push_back(run.id());
  }
  for (DispatchId id : changed_) {
    const auto found = runs_.find(id);
    if (found == runs_.end()) continue;
    DispatchRun& run = *found->second;
    if (run.ending()) continue;  // its final status follows its replicas' exits
    if (run.phase() == std::string_view(protocol::phase::kRunning) &&
        waiting_.remove_if_present(id))
      start_time_limit(run, now);
    report_progress(run, out);
  }
}

void AgentCore::give_up_waiting(TimeMs now, Outbox& out) {
  overdue_.clear();
  waiting_.take_due(now, overdue_);
  for (DispatchId id : overdue_) {
    const auto found = runs_.find(id);
    if (found == runs_.end() || found->second->ending()) continue;
    DispatchRun& run = *found->second;
    const std::string waited = hub::format_duration(options_.pending_give_up_ms);
    std::string reason = "its replicas did not all run within " + waited;
    if (!run.waiting_reason().empty()) reason += " (" + run.waiting_reason() + ")";
    out.warnings.push_back(dispatch_text(id) + " (job " + run.job().name + "): " + reason +
                           "; handing it back to the hub");
    // The hub places it again, elsewhere first; the run's own end is then
    // the status of a dispatch it no longer has, which changes nothing.
    const protocol::Reject refused{id, run.job().name, reason, run.plan().part};
    out.messages.push_back(refused);
    answers_[id] = refused;
    run.cancel("handed back to the hub: " + reason);
    stop_live_replicas(run);
    report_progress(run, out);
  }
}

// Each task keeps its lowest indices: the highest leave, what they held is
// free at once, and they are stopped without failing the part.
void AgentCore::shrink_run(DispatchRun& run, const protocol::Resize& resize) {
  const TaskMembers members = task_members(run);
  for (std::uint32_t t = 0; t < run.job().tasks.size(); ++t) {
    std::int32_t leaving =
        members.count[t] -
        std::max(0, wanted_replicas(resize, run.job().tasks[t].name, members.count[t]));
    while (leaving-- > 0) {
      std::uint32_t highest = 0;
      bool found = false;
      for (std::uint32_t rank = 0; rank < run.replicas().size(); ++rank) {
        const RunReplica& replica = run.replicas()[rank];
        if (replica.task != t || run.released(rank)) continue;
        if (!found || replica.index > run.replicas()[highest].index) highest = rank;
        found = true;
      }
      if (!found) break;
      nodes_.release({run.release_replica(highest)});
      if (run.is_unstopped(highest) && run.stopping(highest))
        executor_.kill(ReplicaKey{run.id(), highest});
    }
  }
  run.resized(resize.elastic_epoch, resize.world_size);
}

std::string AgentCore::elastic_state_path(const DispatchRun& run) const {
  if (options_.elastic_state_dir.empty()) return "";
  std::int32_t replicas = 0;
  for (const protocol::TaskSpec& task : run.job().tasks) replicas += task.replicas;
  const std::int32_t min_available = run.job().min_available;
  if (min_available <= 0 || min_available >= replicas) return "";  // not elastic
  return options_.elastic_state_dir + "/" + std::to_string(run.id()) + ".json";
}

// Written whole, then renamed over the old one: a replica never reads half a file.
void AgentCore::write_elastic_state(const DispatchRun& run, Outbox& out) const {
  const std::string path = elastic_state_path(run);
  if (path.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(options_.elastic_state_dir, error);
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial, std::ios::trunc);
    file << run.elastic_state_json(cluster_);
    if (!file) {
      out.warnings.push_back("cannot write " + partial + " for dispatch " +
                             std::to_string(run.id()));
      return;
    }
  }
  std::filesystem::rename(partial, path, error);
  if (error)
    out.warnings.push_back("cannot rename " + partial + " to " + path + ": " + error.message());
}

}  // namespace gantry::agents
