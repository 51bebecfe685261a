// What the kubernetes executor's tests share: a fixture API server, a job
// and its launches, and reading back what the executor wrote. Exits are
// awaited on the wake fd, as the agent's loop does; the poll timeout is only
// a failure guard.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/kubernetes_executor.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents::kube_executor_testing {

using json = nlohmann::json;
using Mode = KubernetesExecutorOptions::Mode;

inline constexpr DispatchId kDispatch = 7;
inline constexpr int kGuardMs = 30'000;  // failure guard, never a wait for something to happen
inline const std::string kPods = "/api/v1/namespaces/default/pods";
inline const std::string kVolcanoJobs = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs";

inline protocol::JobSpec ddp_job(std::string name = "ddp") {
  protocol::ContainerSpec container;
  container.name = "trainer";
  container.image = "pytorch/pytorch:2.3";
  container.command = {"torchrun"};
  container.args = {"train.py"};
  container.env = {{"EPOCHS", "3"}, {"RANK", "overridden"}};
  container.requests = {
      {"cpu", 2000}, {"memory", 4LL * 1024 * 1024 * 1024 * 1000}, {"nvidia.com/gpu", 1000}};
  container.limits = {{"nvidia.com/gpu", 1000}};
  protocol::TaskSpec task;
  task.name = "worker";
  task.replicas = 2;
  task.containers = {container};
  protocol::JobSpec job;
  job.name = std::move(name);
  job.tasks = {task};
  return job;
}

inline ReplicaLaunch launch_of(const protocol::JobSpec& job, std::uint32_t rank) {
  ReplicaLaunch launch;
  launch.key = ReplicaKey{kDispatch, rank};
  launch.job = &job;
  launch.task = 0;
  launch.index = static_cast<std::int32_t>(rank);
  launch.rank = static_cast<std::int32_t>(rank);
  launch.world_size = 2;
  launch.master_addr = "10.0.0.1";
  launch.master_port = 29500;
  launch.cluster = "east";
  launch.epoch = 1;
  launch.node = "node-" + std::to_string(rank);
  return launch;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline std::map<std::string, std::string> env_of(const json& container) {
  std::map<std::string, std::string> env;
  for (const json& var : container["env"]) env[var["name"]] = var["value"];
  return env;
}

class KubernetesExecutorTest : public ::testing::Test {
 protected:
  explicit KubernetesExecutorTest(std::vector<std::string> fixture_arguments = {})
      : fixture_(std::move(fixture_arguments), dir_.path() / "fixture.log") {}

  std::unique_ptr<KubernetesExecutor> make_executor(Mode mode = Mode::kAuto,
                                                    std::string scheduler = "") {
    return std::make_unique<KubernetesExecutor>(
        client_,
        KubernetesExecutorOptions{
            .agent_identity = "east-agent", .scheduler_name = std::move(scheduler), .mode = mode});
  }

  json get(const std::string& path) {
    const kube::Response response = client_.get(path);
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    return json::parse(response.body);
  }

  int status_of(const std::string& path) { return client_.get(path).status; }

  void create(const std::string& path, const json& object) {
    const kube::Response response = client_.post(path, object.dump());
    ASSERT_EQ(response.status, 201) << response.body;
  }

  void set_pod_status(const std::string& pod, const json& status) {
    const kube::Response response = client_.patch(
        kPods + "/" + pod + "/status", json{{"status", status}}.dump(), kube::PatchType::kMerge);
    ASSERT_EQ(response.status, 200) << response.body;
  }

  static json failed_with(int exit_code) {
    return {{"phase", "Failed"},
            {"containerStatuses",
             {{{"name", "trainer"}, {"state", {{"terminated", {{"exitCode", exit_code}}}}}}}}};
  }

  // Collects exits until `count` came, waiting on the wake fd between tries.
  static std::vector<ReplicaExit> await_exits(KubernetesExecutor& executor, std::size_t count) {
    std::vector<ReplicaExit> exits;
    while (exits.size() < count) {
      pollfd readable{executor.wake_fd(), POLLIN, 0};
      if (::poll(&readable, 1, kGuardMs) <= 0) {
        ADD_FAILURE() << "only " << exits.size() << " of " << count << " exits came";
        break;
      }
      executor.collect_exits(0, exits);
    }
    return exits;
  }

  static bool wake_fd_is_readable(KubernetesExecutor& executor) {
    pollfd readable{executor.wake_fd(), POLLIN, 0};
    return ::poll(&readable, 1, 0) == 1;
  }

  support::TempDir dir_{"kube-executor"};
  kube::testing::FixtureServer fixture_;
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
  protocol::JobSpec job_ = ddp_job();
};

}  // namespace gantry::agents::kube_executor_testing
