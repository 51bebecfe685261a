#include "agents/dispatch_run.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace gantry::agents {

namespace {

bool is_live(ReplicaState state) {
  return state == ReplicaState::kPending || state == ReplicaState::kRunning ||
         state == ReplicaState::kStopping;
}

std::string describe_exit(int exit_code, int signal) {
  if (signal != 0) return "was killed by signal " + std::to_string(signal);
  return "exited with code " + std::to_string(exit_code);
}

}  // namespace

DispatchRun::DispatchRun(DispatchId id, std::shared_ptr<const protocol::JobSpec> job,
                         std::vector<RunReplica> replicas,
                         std::vector<hub::NodeAssignment> assignment, PartPlan plan)
    : id_(id),
      job_(std::move(job)),
      replicas_(std::move(replicas)),
      assignment_(std::move(assignment)),
      plan_(plan),
      released_(replicas_.size(), 0),
      live_(replicas_.size()),
      pending_(replicas_.size()) {
  for (const RunReplica& replica : replicas_) {
    if (replica.task >= job_->tasks.size()) {
      throw std::invalid_argument("replica refers to task " + std::to_string(replica.task) +
                                  " of a job with " + std::to_string(job_->tasks.size()) +
                                  " tasks");
    }
  }
}

std::string DispatchRun::replica_name(std::uint32_t rank) const {
  const RunReplica& replica = replicas_.at(rank);
  return job_->tasks[replica.task].name + "-" + std::to_string(replica.index);
}

void DispatchRun::started(std::uint32_t rank) {
  RunReplica& replica = replicas_.at(rank);
  if (replica.state != ReplicaState::kPending) return;
  replica.state = ReplicaState::kRunning;
  --pending_;
  if (pending_ == 0) waiting_reason_.clear();
}

void DispatchRun::launched(std::uint32_t rank) {
  RunReplica& replica = replicas_.at(rank);
  if (replica.state == ReplicaState::kPending) replica.launched = true;
}

void DispatchRun::waiting(std::uint32_t rank, std::string reason) {
  if (replicas_.at(rank).state != ReplicaState::kPending || reason.empty()) return;
  waiting_reason_ = replica_name(rank) + ": " + std::move(reason);
}

void DispatchRun::failed_to_start(std::uint32_t rank, const std::string& why) {
  if (replicas_.at(rank).state != ReplicaState::kPending) return;
  --pending_;
  record_first_failure(rank, "could not start: " + why);
  // 127 is what a shell reports for a command it could not run.
  ended(rank, ReplicaState::kFailed, 127);
}

void DispatchRun::exited(std::uint32_t rank, int exit_code, int signal, bool fenced) {
  RunReplica& replica = replicas_.at(rank);
  if (!is_live(replica.state)) return;  // a late duplicate report
  if (replica.state == ReplicaState::kPending) --pending_;
  if (fenced) {
    this->fenced("fenced: the supervisor of " + replica_name(rank) +
                 " stopped it: the agent had no confirmed contact with the hub");
    ended(rank, ReplicaState::kStopped, exit_code);
  } else if (replica.state == ReplicaState::kStopping) {
    ended(rank, ReplicaState::kStopped, exit_code);
  } else if (exit_code == 0 && signal == 0) {
    ended(rank, ReplicaState::kSucceeded, 0);
  } else {
    record_first_failure(rank, describe_exit(exit_code, signal));
    ended(rank, ReplicaState::kFailed, exit_code);
  }
}

bool DispatchRun::stopping(std::uint32_t rank) {
  RunReplica& replica = replicas_.at(rank);
  if (replica.state == ReplicaState::kPending && replica.launched) {
    --pending_;  // its executor has it: it ends when the kill is reported
    replica.state = ReplicaState::kStopping;
    return true;
  }
  if (replica.state == ReplicaState::kPending) {
    --pending_;
    ended(rank, ReplicaState::kStopped, 0);
    return false;
  }
  if (replica.state != ReplicaState::kRunning) return false;
  replica.state = ReplicaState::kStopping;
  return true;
}

void DispatchRun::cancel(std::string message) {
  if (cancelled_ || failed_ || finished()) return;
  cancelled_ = true;
  message_ = std::move(message);
}

void DispatchRun::time_limit_reached(std::string message) {
  if (cancelled_ || failed_ || finished()) return;
  failed_ = true;
  message_ = std::move(message);
}

void DispatchRun::fenced(std::string message) {
  if (cancelled_ || failed_ || finished()) return;
  failed_ = true;
  evicted_ = true;
  message_ = std::move(message);
}

bool DispatchRun::is_unstopped(std::uint32_t rank) const {
  const ReplicaState state = replicas_.at(rank).state;
  return state == ReplicaState::kPending || state == ReplicaState::kRunning;
}

const char* DispatchRun::phase() const {
  if (!finished()) return pending_ > 0 ? protocol::phase::kPending : protocol::phase::kRunning;
  if (failed_) return protocol::phase::kFailed;
  if (cancelled_) return protocol::phase::kAborted;
  return protocol::phase::kCompleted;
}

void DispatchRun::fill_status(protocol::StatusUpdate& update) const {
  update.dispatch_id = id_;
  update.job = job_->name;
  update.phase = phase();
  update.message = message_.empty() && !finished() ? waiting_reason_ : message_;
  if (evicted_) {  // the hub requeues it (Volcano: an evicted pod restarts its job)
    update.event = protocol::policy_event::kPodEvicted;
  } else if (first_failed_rank_ >= 0) {
    const RunReplica& failed = replicas_[static_cast<std::size_t>(first_failed_rank_)];
    update.event = protocol::policy_event::kPodFailed;
    update.task = job_->tasks[failed.task].name;
    update.replica = failed.index;
    update.exit_code = failed.exit_code;
  }
  update.tasks.clear();
  for (std::size_t rank = 0; rank < replicas_.size(); ++rank) {
    const RunReplica& replica = replicas_[rank];
    const std::string& name = job_->tasks[replica.task].name;
    if (released_[rank] != 0) continue;  // no longer part of the job (a shrink)
    if (update.tasks.empty() || update.tasks.back().name != name) {
      update.tasks.push_back(protocol::TaskStatus{name, 0, 0, 0, 0});
    }
    protocol::TaskStatus& counts = update.tasks.back();
    switch (replica.state) {
      case ReplicaState::kPending:
        ++counts.pending;
        break;
      case ReplicaState::kRunning:
      case ReplicaState::kStopping:
        ++counts.running;
        break;
      case ReplicaState::kSucceeded:
        ++counts.succeeded;
        break;
      case ReplicaState::kFailed:
      case ReplicaState::kStopped:
        ++counts.failed;
        break;
    }
  }
}

void DispatchRun::set_rendezvous(std::string master_addr, std::uint16_t master_port) {
  master_addr_ = std::move(master_addr);
  master_port_ = master_port;
}

void DispatchRun::resized(std::uint32_t elastic_epoch, std::int32_t world_size) {
  elastic_epoch_ = elastic_epoch;
  plan_.world_size = world_size;
}

std::uint32_t DispatchRun::add_replica(RunReplica replica, hub::NodeAssignment holds) {
  if (replica.task >= job_->tasks.size())
    throw std::invalid_argument("replica refers to task " + std::to_string(replica.task));
  replica.state = ReplicaState::kPending;
  replicas_.push_back(std::move(replica));
  released_.push_back(0);
  if (assignment_.size() + 1 == replicas_.size()) assignment_.push_back(std::move(holds));
  ++live_;
  ++pending_;
  return static_cast<std::uint32_t>(replicas_.size() - 1);
}

hub::NodeAssignment DispatchRun::release_replica(std::uint32_t rank) {
  released_.at(rank) = 1;
  hub::NodeAssignment holds;
  if (rank < assignment_.size()) {
    holds = assignment_[rank];
    assignment_[rank].amount = hub::ResourceVector{};  // released once, here
  }
  return holds;
}

std::vector<std::uint32_t> DispatchRun::member_ranks() const {
  std::vector<std::uint32_t> ranks;
  for (std::uint32_t rank = 0; rank < replicas_.size(); ++rank)
    if (released_[rank] == 0 && is_live(replicas_[rank].state)) ranks.push_back(rank);
  return ranks;
}

std::string DispatchRun::elastic_state_json(const std::string& cluster) const {
  std::int32_t replicas = 0;
  for (const protocol::TaskSpec& task : job_->tasks) replicas += task.replicas;
  const std::int32_t min_replicas = job_->min_available > 0 ? job_->min_available : replicas;
  nlohmann::ordered_json members = nlohmann::ordered_json::array();
  for (std::uint32_t rank : member_ranks()) {
    const RunReplica& replica = replicas_[rank];
    members.push_back({{"task", job_->tasks[replica.task].name},
                       {"index", replica.index},
                       {"rank", plan_.rank_offset + static_cast<std::int64_t>(rank)},
                       {"node", replica.node}});
  }
  const nlohmann::ordered_json state = {{"job", job_->name},
                                        {"dispatch_id", id_},
                                        {"epoch", elastic_epoch_},
                                        {"world_size", plan_.world_size},
                                        {"min_replicas", min_replicas},
                                        {"max_replicas", replicas},
                                        {"master_addr", master_addr_},
                                        {"master_port", master_port_},
                                        {"cluster", cluster},
                                        {"members", std::move(members)}};
  return state.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void DispatchRun::ended(std::uint32_t rank, ReplicaState state, int exit_code) {
  RunReplica& replica = replicas_[rank];
  replica.state = state;
  replica.exit_code = exit_code;
  --live_;
}

// Only the first failure is the cause; later ones are usually its echo (the
// other ranks losing their peer), so the message keeps naming the first. It
// names the replica as the job knows it: its index and RANK over every part.
void DispatchRun::record_first_failure(std::uint32_t rank, const std::string& what) {
  if (failed_) return;
  failed_ = true;
  first_failed_rank_ = rank;
  const std::int64_t global_rank = std::int64_t{plan_.rank_offset} + rank;
  message_ =
      "replica " + replica_name(rank) + " (rank " + std::to_string(global_rank) + ") " + what;
}

}  // namespace gantry::agents
