// What the agent asks of whatever runs replicas (simulated timers or real
// processes). The agent core drives an Executor; the socket loop only waits on
// its wake-up fd and deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/log_source.hpp"
#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

using hub::DispatchId;
using hub::TimeMs;

// One replica of this cluster's part of a dispatch; `rank` is its index over
// the part's replicas, tasks in spec order. A cluster holds at most one part
// of a dispatch, so the key is unique on the agent; the replica's global RANK
// is in ReplicaLaunch.
struct ReplicaKey {
  DispatchId dispatch = 0;
  std::uint32_t rank = 0;
  bool operator==(const ReplicaKey&) const = default;
};

struct ReplicaKeyHash {
  std::size_t operator()(const ReplicaKey& key) const {
    return std::hash<std::uint64_t>()(key.dispatch * 0x9E3779B97F4A7C15ULL ^ key.rank);
  }
};

// Everything a replica is told about itself and its gang (PyTorch-style), over
// every part of the dispatch: a gang split across clusters forms one world.
struct ReplicaLaunch {
  ReplicaKey key;
  const protocol::JobSpec* job = nullptr;  // valid for the duration of start()
  std::uint32_t task = 0;                  // index into job->tasks
  std::int32_t index = 0;                  // replica index within its task, over every part
  std::int32_t rank = 0;                   // RANK over every part
  std::int32_t world_size = 0;             // WORLD_SIZE: replicas over every part
  std::int32_t part_replicas = 0;          // replicas of this agent's part, so far
  std::string master_addr;                 // MASTER_ADDR: where the gang meets (part 0's host)
  std::uint16_t master_port = 0;           // MASTER_PORT, 0 when the executor needs none
  std::string cluster;                     // this agent's cluster
  std::uint32_t epoch = 0;                 // the job's placement epoch
  std::string node;                        // where the placement put it
  // The node's kubernetes.io/hostname label (what a node selector matches),
  // which need not be its name; "" when the node has none.
  std::string node_hostname;
  std::string member_queue;  // the member's own queue (Volcano spec.queue); "": the executor's
  std::int32_t part = 0;     // this agent's part of the dispatch
  std::int32_t parts = 1;    // parts of the dispatch, one per cluster
  std::uint32_t elastic_epoch = 0;  // GANTRY_ELASTIC_EPOCH (docs/elastic.md)
  std::string elastic_state;        // GANTRY_ELASTIC_STATE: its JSON file, "" for none
  // hosts[task][index]: where each replica of the job is reached, for its
  // framework plugins (spec.plugins, agents/job_plugins.hpp); null when it
  // has none. Valid for the duration of start().
  const std::vector<std::vector<std::string>>* replica_hosts = nullptr;
};

// A replica a previous agent of this cluster started and left running (a
// cluster-role agent restarted, or a standby took over): what its executor
// finds in the cluster, for the core to take back.
struct AdoptedReplica {
  ReplicaKey key;
  std::string job;
  std::string task;
  std::string node;
  std::int32_t part = 0;
  std::int32_t parts = 1;
  std::int32_t task_index = 0;  // index within its task, over every part
  bool ended = false;           // it ended while no agent watched
  int exit_code = 0;
  bool fenced = false;  // its supervisor stopped it: the agent had lost the hub
  // Replicas of its part when it was started; 0 when its executor does not
  // say. A part that had more than were found was cut short by the agent's
  // end before it started them all.
  std::int32_t part_replicas = 0;
};

// A started replica that does not run yet, or now runs: executors whose
// replicas wait on something outside the agent (a Kubernetes pod Pending
// while no node takes it or its image is pulled) say when each one runs.
struct ReplicaProgress {
  ReplicaKey key;
  bool running = false;
  std::string reason{};  // why it still waits ("Unschedulable: 0/3 nodes are available: ...")
};

struct ReplicaExit {
  ReplicaKey key;
  int exit_code = 0;    // 128 + signal when killed by a signal, as a shell reports it
  int signal = 0;       // 0 when it exited by itself
  bool fenced = false;  // its supervisor stopped it: the agent had lost the hub
  // Why a replica that start() accepted never started ("" when it ran): an
  // executor that starts replicas after start() returns reports it so.
  std::string not_started{};
};

class Executor {
 public:
  virtual ~Executor() = default;

  // Why `job` cannot run on this executor, or "" when it can. Asked before a
  // dispatch is admitted, so that a job this executor cannot start is rejected
  // instead of being half started.
  virtual std::string check(const protocol::JobSpec& job) const = 0;
  // Why this cluster's part of a dispatch split over `parts` clusters
  // cannot run here (a rendezvous the executor cannot give), "" when it can.
  virtual std::string check_split(const protocol::JobSpec& /*job*/, std::int32_t /*parts*/) const {
    return "";
  }
  // gantryctl logs: the log of replica `request.replica` of `request.task`
  // of `request.job` here, from `request.tail_lines` on, followed with
  // `request.follow`; nullptr with `why` set when this executor keeps none.
  virtual std::unique_ptr<LogSource> open_log(const protocol::LogsRequest& /*request*/,
                                              std::string& why) {
    why = "this cluster's executor keeps no replica logs";
    return nullptr;
  }
  // True when a started replica stays pending until collect_progress() says
  // it runs; false: it runs once start() returns.
  virtual bool reports_running() const { return false; }
  // Appends what changed since the last call: replicas that now run, and
  // new reasons why others still wait.
  virtual void collect_progress(std::vector<ReplicaProgress>& /*out*/) {}
  // A port for a gang's rendezvous (MASTER_PORT), asked by the agent that
  // holds part 0 when it admits it; 0 when not needed.
  virtual std::uint16_t pick_rendezvous_port() { return 0; }
  // Starts one replica. Throws std::runtime_error when it cannot be started.
  virtual void start(const ReplicaLaunch& launch, TimeMs now) = 0;
  // Every replica of this agent's part of `dispatch` has had start(): an
  // executor that starts a part as one object (a Volcano Job) creates it here.
  // It does not throw: a part it cannot create ends through collect_exits(),
  // every replica with an exit of its own.
  virtual void started_all(DispatchId /*dispatch*/, TimeMs /*now*/) {}
  // Stops a replica; its exit is reported by a later collect_exits().
  virtual void kill(const ReplicaKey& key) = 0;
  // When collect_exits() next has something to report without a wake-up on
  // wake_fd() (timers); nullopt when nothing is due.
  virtual std::optional<TimeMs> next_deadline() const = 0;
  // A descriptor that turns readable when replicas may have exited; -1 if none.
  virtual int wake_fd() const = 0;
  // Appends every replica that ended by `now`.
  virtual void collect_exits(TimeMs now, std::vector<ReplicaExit>& out) = 0;
  // Kills every replica and waits until they are gone (agent shutdown).
  virtual void shutdown() = 0;
  // The hub answered what the agent sent at `confirmed` (steady ms), and the
  // fence timeout it gives is `fence_after_ms`: executors whose runs outlive the agent fence
  // them when the contact grows older than that (protocol/lease_timing.hpp).
  virtual void hub_contact(TimeMs /*confirmed*/, TimeMs /*fence_after_ms*/) {}
  // The hub welcomed a Hello sent at `reported_before` (steady ms): it has
  // stored every end collected before then (the Hello repeated them, and
  // the hub welcomes it only once they are stored). Executors that keep
  // ends across an agent restart may forget those.
  virtual void ends_stored(TimeMs /*reported_before*/) {}
};

}  // namespace gantry::agents
