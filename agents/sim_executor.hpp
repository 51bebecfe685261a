// Replicas that only pretend to run: each "runs" for the job's
// gantry.io/sim-duration seconds and exits with gantry.io/sim-exit-code. Time
// is whatever the caller passes in, so tests drive it with a fake clock and the
// agent with its event loop's clock.
#pragma once

#include <queue>
#include <unordered_map>
#include <vector>

#include "agents/executor.hpp"

namespace gantry::agents {

inline constexpr const char* kSimDurationAnnotation = "gantry.io/sim-duration";
inline constexpr const char* kSimExitCodeAnnotation = "gantry.io/sim-exit-code";

struct SimBehaviour {
  TimeMs duration_ms = 1000;
  int exit_code = 0;
};

// Reads the job's annotations (decimal seconds, default 1; exit code 0..255,
// default 0). Throws hub::FieldError naming the annotation and its value.
SimBehaviour sim_behaviour(const protocol::JobSpec& job);

class SimExecutor final : public Executor {
 public:
  std::string check(const protocol::JobSpec& job) const override;
  void start(const ReplicaLaunch& launch, TimeMs now) override;
  void kill(const ReplicaKey& key) override;
  std::optional<TimeMs> next_deadline() const override;
  int wake_fd() const override { return -1; }
  void collect_exits(TimeMs now, std::vector<ReplicaExit>& out) override;
  void shutdown() override;

  std::size_t running() const { return running_.size(); }

 private:
  struct Ending {
    TimeMs at = 0;
    ReplicaKey key;
    bool operator>(const Ending& other) const { return at > other.at; }
  };
  struct Running {
    TimeMs ends_at = 0;
    int exit_code = 0;
  };

  // Ends ordered by time; an entry whose replica was killed is skipped when
  // it comes up (its key is no longer in running_).
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> endings_;
  std::unordered_map<ReplicaKey, Running, ReplicaKeyHash> running_;
  std::vector<ReplicaExit> killed_;  // reported by the next collect_exits()
};

}  // namespace gantry::agents
