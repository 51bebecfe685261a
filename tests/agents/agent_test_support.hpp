// Builders shared by the agent tests: a small inventory, Prepares and
// Commits, and an executor that records what it was asked to do.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_core.hpp"
#include "agents/executor.hpp"
#include "config/inventory.hpp"
#include "hub/gang_wire.hpp"
#include "hub/job_request.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents::testing {

inline constexpr std::int64_t kGi = 1024LL * 1024 * 1024 * 1000;  // milli-bytes

inline protocol::NodeUsage make_node(const std::string& name, std::int64_t cpus, std::int64_t gpus,
                                     const std::string& model) {
  protocol::NodeUsage node;
  node.name = name;
  node.allocatable = {{"cpu", cpus * 1000}, {"memory", 128 * kGi}};
  if (gpus > 0) {
    node.allocatable["nvidia.com/gpu"] = gpus * 1000;
    node.labels["nvidia.com/gpu.product"] = model;
    node.gpu_model = model;
  }
  return node;
}

// Two 4-GPU A100 nodes and one 2-GPU T4 node: 10 GPUs, at most 4 on a node.
inline config::Inventory small_inventory() {
  config::Inventory inventory;
  inventory.cluster_name = "test";
  inventory.cluster_labels = {{"region", "lab"}};
  inventory.nodes = {make_node("a100-0", 32, 4, "A100"), make_node("a100-1", 32, 4, "A100"),
                     make_node("t4-0", 16, 2, "T4")};
  return inventory;
}

struct TaskDef {
  std::string name;
  std::int32_t replicas = 1;
  std::int64_t gpus = 0;
  std::int64_t cpus = 1;
  protocol::Labels node_selector = {};
  std::vector<std::string> command = {};
};

inline protocol::TaskSpec make_task(const TaskDef& def) {
  protocol::TaskSpec task;
  task.name = def.name;
  task.replicas = def.replicas;
  task.node_selector = def.node_selector;
  protocol::ContainerSpec container;
  container.name = def.name;
  container.command = def.command;
  container.requests = {{"cpu", def.cpus * 1000}};
  if (def.gpus > 0) container.requests["nvidia.com/gpu"] = def.gpus * 1000;
  task.containers.push_back(container);
  return task;
}

// `prepare` with the gang the hub would send for its job (Prepare::gang): the
// hub's resolver over the spec, GPU products counted as the core counts them.
// A test that edits prepare.job calls it again, as the hub resolves again.
inline protocol::Prepare with_hub_gang(protocol::Prepare prepare) {
  hub::GangShape gang = hub::resolve_gang(prepare.job);
  hub::count_selected_gpu_products(gang);
  prepare.gang = hub::gang_to_wire(gang);
  return prepare;
}

// Part 0 of a one-part dispatch: every replica of every task here.
inline protocol::Prepare make_prepare(std::uint64_t id, const std::string& job,
                                      const std::vector<TaskDef>& tasks,
                                      std::int32_t min_available = 0,
                                      protocol::Labels annotations = {}) {
  protocol::Prepare prepare;
  prepare.dispatch_id = id;
  prepare.epoch = 1;
  prepare.job.name = job;
  prepare.job.min_available = min_available;
  prepare.job.annotations = std::move(annotations);
  for (const TaskDef& def : tasks) {
    prepare.job.tasks.push_back(make_task(def));
    prepare.task_replicas[def.name] = def.replicas;
    prepare.world_size += def.replicas;
  }
  return with_hub_gang(std::move(prepare));
}

// The hub's Commit after `admit`: the gang meets where part 0 said.
inline protocol::Commit commit_for(const protocol::Admit& admit) {
  return protocol::Commit{admit.dispatch_id, admit.job, admit.part, admit.rendezvous_host,
                          admit.rendezvous_port};
}

template <class T>
std::vector<T> messages_of(const Outbox& out) {
  std::vector<T> found;
  for (const OutboundMessage& message : out.messages) {
    if (const T* typed = std::get_if<T>(&message)) found.push_back(*typed);
  }
  return found;
}

// Both phases, as a hub whose every part admitted: Prepare, then (when it is
// admitted) Commit at the rendezvous the Admit named. Returns the Admit.
inline std::optional<protocol::Admit> prepare_and_commit(AgentCore& core,
                                                         const protocol::Prepare& prepare,
                                                         TimeMs now, Outbox& out) {
  core.on_prepare(prepare, now, out);
  for (const protocol::Admit& admit : messages_of<protocol::Admit>(out)) {
    if (admit.dispatch_id != prepare.dispatch_id) continue;
    core.on_commit(commit_for(admit), now, out);
    return admit;
  }
  return std::nullopt;
}

// Records starts and kills; the test decides when replicas exit.
class FakeExecutor final : public Executor {
 public:
  std::string check(const protocol::JobSpec& job) const override {
    return job.annotations.count("refuse") != 0 ? "refused: " + job.annotations.at("refuse") : "";
  }
  std::uint16_t pick_rendezvous_port() override { return rendezvous_port; }
  void start(const ReplicaLaunch& launch, TimeMs) override {
    if (fail_start_rank && *fail_start_rank == launch.key.rank) {
      throw std::runtime_error("no such file");
    }
    started.push_back(launch);
  }
  void kill(const ReplicaKey& key) override { killed.push_back(key); }
  bool reports_running() const override { return waits_to_run; }
  std::optional<TimeMs> next_deadline() const override { return std::nullopt; }
  int wake_fd() const override { return -1; }
  void collect_exits(TimeMs, std::vector<ReplicaExit>&) override {}
  void shutdown() override {}

  std::vector<ReplicaLaunch> started;
  std::vector<ReplicaKey> killed;
  std::optional<std::uint32_t> fail_start_rank;
  std::uint16_t rendezvous_port = 29500;
  bool waits_to_run = false;  // as Kubernetes pods: running once the test says so
};

inline const protocol::TaskStatus* task_status(const protocol::StatusUpdate& update,
                                               const std::string& task) {
  for (const auto& status : update.tasks) {
    if (status.name == task) return &status;
  }
  return nullptr;
}

inline std::int64_t allocated_gpus(const protocol::UsageReport& report) {
  std::int64_t total = 0;
  for (const auto& node : report.nodes) {
    const auto gpus = node.allocated.find("nvidia.com/gpu");
    if (gpus != node.allocated.end()) total += gpus->second;
  }
  return total / 1000;
}

// Waits for `fd` to turn readable; false when `deadline` passes first. A
// deadline only bounds a broken test, it is never what the test measures.
inline bool wait_readable(int fd, std::chrono::steady_clock::time_point deadline) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd item{fd, POLLIN, 0};
    const int ready = ::poll(&item, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
  }
}

inline std::chrono::steady_clock::time_point deadline_in(std::chrono::seconds seconds) {
  return std::chrono::steady_clock::now() + seconds;
}

// One executor turn of the agent's loop (agents/agent_loop.cpp): waits for
// the executor's wake fd unless it has something due already, then hands the
// core what now runs and what ended, at `now`. False when `deadline` passes
// first.
inline bool executor_turn(Executor& executor, AgentCore& core, Outbox& out, TimeMs now,
                          std::chrono::steady_clock::time_point deadline) {
  const std::optional<TimeMs> due = executor.next_deadline();
  if (!(due && *due <= now) && !wait_readable(executor.wake_fd(), deadline)) return false;
  std::vector<ReplicaProgress> progress;
  executor.collect_progress(progress);
  if (!progress.empty()) core.on_progress(progress, now, out);
  std::vector<ReplicaExit> exits;
  executor.collect_exits(now, exits);
  core.on_exits(exits, out);
  return true;
}

// A descriptor that turns readable when `pid` exits (the test must be its
// parent or subreaper to reap it).
inline int pidfd_open(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

// Waits for `pid` (watched by `pidfd`, which is closed) to die, reaps it, and
// checks SIGKILL killed it: a stopped replica's process group went with it.
inline void expect_killed_and_reap(pid_t pid, int pidfd) {
  ASSERT_TRUE(wait_readable(pidfd, deadline_in(std::chrono::seconds(60))));
  ::close(pidfd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace gantry::agents::testing
