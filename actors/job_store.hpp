// The hub's durable record of accepted jobs, behind one seam with two
// backends: SQLite in the state directory (SqliteJobStore, one machine) and
// etcd (EtcdJobStore, several hubs). A job is written before its submission
// is acknowledged and marked with its terminal phase when it ends, so after a
// restart the hub re-submits exactly the jobs that had not ended. Each job's
// current dispatch is recorded before its Prepares (and again before its
// Commits) leave, so a restarted hub knows which parts it had committed;
// cordoned clusters stay cordoned.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::actors {

// A job's current dispatch as recorded: enough for a restarted hub to tell a
// part it had committed from one it had only prepared.
struct StoredDispatch {
  std::uint64_t id = 0;  // 0: none recorded
  bool committed = false;
  std::vector<std::string> clusters;  // by part index
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
};

struct StoredJob {
  std::int64_t row = 0;
  std::string name;
  std::string yaml;
  std::int64_t submitted_ms = 0;
  StoredDispatch dispatch;  // its last recorded dispatch, if any
  std::string submitter;    // the key that submitted it ("" before keys)
  // Its protocol::JobSpec as validated at submission, msgpack: a restart
  // rebuilds the job from it without parsing the YAML again ("" for jobs
  // stored before, which come back from `yaml`).
  std::string spec;
};

// A job's end as the store keeps it: the row stays, listed and described
// from `record`, until deleted, its ttl runs out (`expires_ms`) or the
// hub's --keep-finished does.
struct FinishedJob {
  std::int64_t row = 0;
  std::string phase;
  std::int64_t finished_ms = 0;
  std::string queue;
  std::int64_t started_ms = 0;  // 0: never ran
  std::int64_t gpu_milli = 0;   // GPUs the whole gang requested, x1000
  std::int64_t expires_ms = 0;  // its ttlSecondsAfterFinished ends then; 0: none
  std::string record;           // msgpack protocol::DescribeReply: what describe showed at its end
};

// What `gantry-hub --check` reports of a store.
struct StateSummary {
  int schema_version = 0;
  std::int64_t jobs = 0;
  std::int64_t unfinished = 0;
  std::int64_t queues = 0;
  std::string integrity;  // "" when the backend's check passes, else its first finding
};

class JobHistory;

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Where the store is, for messages: "/var/lib/gantry/gantry.db",
  // "etcd http://10.0.0.1:2379 prefix /gantry/".
  virtual std::string where() const = 0;
  // True when this opening made the store (a new or emptied state): what
  // agents still run is none of its jobs, and must not be stopped for that.
  virtual bool created() const = 0;
  // Counts and the backend's own check, for gantry-hub --check.
  virtual StateSummary summary() = 0;
  // A reader of the ended jobs for another thread: it does not wait on this
  // store's writes.
  virtual std::unique_ptr<JobHistory> open_history() const = 0;

  // Groups the writes between begin() and commit() in one transaction;
  // rollback() undoes them. Without begin(), each write commits on its own.
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // True when the open transaction holds as much as one transaction may
  // (etcd bounds its operations and bytes): commit it before writing more.
  virtual bool transaction_full() const { return false; }

  // Returns the new row. Durable once committed; throws std::runtime_error on
  // failure.
  virtual std::int64_t add(std::string_view name, std::string_view yaml, std::int64_t submitted_ms,
                           std::string_view submitter, std::string_view spec = {}) = 0;
  // Records how the job ended; it will not come back after a restart, and
  // stays listed (from its record) until it is forgotten.
  virtual void finish(const FinishedJob& job) = 0;
  void finish(std::int64_t row, std::string_view phase, std::int64_t finished_ms) {
    finish(FinishedJob{row, std::string(phase), finished_ms, "", 0, 0, 0, ""});
  }
  // The submitters of the ended jobs named `name` (none: no such ended job).
  virtual std::vector<std::string> ended_submitters(std::string_view name) = 0;
  // Forgets the ended jobs named `name` (gantryctl delete job after a
  // restart, when only the store knows them).
  virtual void forget_ended(std::string_view name) = 0;
  // Forgets at most `limit` of the ended jobs whose ttl ran out by `now`, or
  // that ended at or before `ended_by`; returns how many. Inclusive as
  // next_expiry is: a wake-up at the expiry it gave finds the job due.
  virtual std::int64_t forget_expired(std::int64_t now, std::int64_t ended_by,
                                      std::int64_t limit) = 0;
  // When the next ended job expires, given --keep-finished; nullopt: none.
  virtual std::optional<std::int64_t> next_expiry(std::int64_t keep_finished_ms) = 0;
  // Removes a job's row and its dispatch record: a submission refused after
  // it was written, or a job deleted (gantryctl delete job, its ttl).
  virtual void forget(std::int64_t row) = 0;
  // The name the hub made for a job submitted with metadata.generateName,
  // so a restart brings it back under that name.
  virtual void rename(std::int64_t row, std::string_view name) = 0;
  // Jobs without a terminal phase, oldest first, with their last dispatch.
  virtual std::vector<StoredJob> unfinished() = 0;
  // The job's current dispatch (one per job: replaces the one before).
  virtual void record_dispatch(std::int64_t row, const StoredDispatch& dispatch) = 0;
  // Cordoned clusters stay cordoned across restarts.
  virtual void set_cordoned(std::string_view cluster, bool cordoned) = 0;
  virtual std::vector<std::string> cordoned_clusters() = 0;  // by name
  // Applied Volcano Queue documents, so queues outlive a restart (their jobs
  // are re-submitted into them). Applying a name again replaces its document.
  virtual void save_queue(std::string_view name, std::string_view yaml) = 0;
  virtual void drop_queue(std::string_view name) = 0;
  virtual std::vector<std::string> queues() = 0;  // in the order they were first applied
  // Applied PriorityClass documents, by name, likewise.
  virtual void save_priority_class(std::string_view name, std::string_view yaml) = 0;
  virtual void drop_priority_class(std::string_view name) = 0;
  virtual std::vector<std::string> priority_classes() = 0;
  // Counts hub starts on this state: one more each time, from 1 for a state
  // that existed before generations were kept, from a random point for one
  // made now. Dispatch ids carry it, so no id names two dispatches across
  // restarts.
  virtual std::uint64_t start_generation() = 0;
  // The generation this state began with: dispatches of generations below
  // it, or above the current one, were handed out before this state was
  // made, by a hub whose state is lost.
  virtual std::uint64_t first_generation() = 0;

  // Who this hub is (its generation included), for hubs(): set before the
  // store actor runs.
  void describe_self(protocol::HubInfo self) { self_ = std::move(self); }
  // gantryctl get hubs: the hubs on this store, this one (which holds it)
  // first, with their roles and the store filled in. One machine's store has
  // only the one hub.
  virtual std::vector<protocol::HubInfo> hubs() {
    protocol::HubInfo leader = self_;
    leader.role = "leader";
    leader.store = where();
    return {leader};
  }

 protected:
  protocol::HubInfo self_;
};

// Generations of a new state start at a random point below 2^22, so that the
// dispatch ids of a hub started on a lost or new state do not repeat those
// of the runs agents may still hold from the state before.
std::uint64_t random_first_generation();

}  // namespace gantry::actors
