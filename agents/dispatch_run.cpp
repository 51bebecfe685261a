#include "agents/dispatch_run.hpp"

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
}

void DispatchRun::failed_to_start(std::uint32_t rank, const std::string& why) {
  if (replicas_.at(rank).state != ReplicaState::kPending) return;
  --pending_;
  record_first_failure(rank, "could not start: " + why);
  // 127 is what a shell reports for a command it could not run.
  ended(rank, ReplicaState::kFailed, 127);
}

void DispatchRun::exited(std::uint32_t rank, int exit_code, int signal) {
  RunReplica& replica = replicas_.at(rank);
  if (!is_live(replica.state)) return;  // a late duplicate report
  if (replica.state == ReplicaState::kPending) --pending_;
  if (replica.state == ReplicaState::kStopping) {
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
  update.message = message_;
  update.tasks.clear();
  for (const RunReplica& replica : replicas_) {
    const std::string& name = job_->tasks[replica.task].name;
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
  const std::int64_t global_rank = std::int64_t{plan_.rank_offset} + rank;
  message_ =
      "replica " + replica_name(rank) + " (rank " + std::to_string(global_rank) + ") " + what;
}

}  // namespace gantry::agents
