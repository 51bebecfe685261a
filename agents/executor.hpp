// What the agent asks of whatever runs replicas (simulated timers or real
// processes). The agent core drives an Executor; the socket loop only waits on
// its wake-up fd and deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

using hub::DispatchId;
using hub::TimeMs;

// One replica of one dispatch; `rank` is its index over every replica of the
// dispatch, tasks in spec order (PyTorch's RANK).
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

struct ReplicaLaunch {
  ReplicaKey key;
  const protocol::JobSpec* job = nullptr;  // valid for the duration of start()
  std::uint32_t task = 0;                  // index into job->tasks
  std::int32_t index = 0;                  // replica index within its task
  std::int32_t world_size = 0;             // replicas of the dispatch
  std::uint16_t rendezvous_port = 0;       // MASTER_PORT, 0 when the executor needs none
  std::string node;                        // where the placement put it
};

struct ReplicaExit {
  ReplicaKey key;
  int exit_code = 0;  // 128 + signal when killed by a signal, as a shell reports it
  int signal = 0;     // 0 when it exited by itself
};

class Executor {
 public:
  virtual ~Executor() = default;

  // Why `job` cannot run on this executor, or "" when it can. Asked before a
  // dispatch is admitted, so that a job this executor cannot start is rejected
  // instead of being half started.
  virtual std::string check(const protocol::JobSpec& job) const = 0;
  // A port for the dispatch's rendezvous (MASTER_PORT); 0 when not needed.
  virtual std::uint16_t pick_rendezvous_port() { return 0; }
  // Starts one replica. Throws std::runtime_error when it cannot be started.
  virtual void start(const ReplicaLaunch& launch, TimeMs now) = 0;
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
};

}  // namespace gantry::agents
