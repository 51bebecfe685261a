// The kubernetes executor in Volcano Job mode, against the fixture API server
// playing a member that runs Volcano (--volcano-controller: Volcano's job
// admission and controller, its env / svc / pytorch / ray plugins). The
// part's Job keeps the job's own tasks, so that Volcano's plugins find them;
// the pods Volcano makes map back to replicas by task and index.
#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/agents/kube_executor_fixture.hpp"

namespace gantry::agents {
namespace {

using namespace kube_executor_testing;

constexpr const char* kJob = "ddp-7";  // the part's Volcano Job: <job>-<dispatch>

// master x1 + worker x2 under Volcano's pytorch plugin.
protocol::JobSpec pytorch_job() {
  protocol::JobSpec job = ddp_job();
  protocol::TaskSpec master = job.tasks[0];
  master.name = "master";
  master.replicas = 1;
  job.tasks.insert(job.tasks.begin(), master);
  job.plugins = {{"pytorch", {"--master=master", "--worker=worker"}}};
  return job;
}

// Rank r of the part, as the agent numbers them: tasks in spec order.
ReplicaLaunch launch_for(const protocol::JobSpec& job, std::uint32_t rank) {
  ReplicaLaunch launch = launch_of(job, rank);
  std::uint32_t first = 0;
  for (std::uint32_t t = 0; t < job.tasks.size(); ++t) {
    const auto replicas = static_cast<std::uint32_t>(job.tasks[t].replicas);
    if (rank < first + replicas) {
      launch.task = t;
      launch.index = static_cast<std::int32_t>(rank - first);
      break;
    }
    first += replicas;
  }
  launch.world_size = 0;
  for (const auto& task : job.tasks) launch.world_size += task.replicas;
  return launch;
}

class VolcanoJobExecutorTest : public KubernetesExecutorTest {
 protected:
  VolcanoJobExecutorTest() : KubernetesExecutorTest({"--volcano-controller"}) {}

  // Starts every replica of `job` as the agent does: start() each, then started_all().
  void start_part(KubernetesExecutor& executor, const protocol::JobSpec& job) {
    std::uint32_t replicas = 0;
    for (const auto& task : job.tasks) replicas += static_cast<std::uint32_t>(task.replicas);
    for (std::uint32_t rank = 0; rank < replicas; ++rank) executor.start(launch_for(job, rank), 0);
    executor.started_all(kDispatch, 0);
  }

  // Volcano's controller works on its own: the test polls for what it makes.
  json await_pod(const std::string& name) {
    const auto guard = std::chrono::steady_clock::now() + std::chrono::milliseconds(kGuardMs);
    while (std::chrono::steady_clock::now() < guard) {
      const kube::Response response = client_.get(kPods + "/" + name);
      if (response.status == 200) return json::parse(response.body);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "Volcano did not make pod " << name;
    return json::object();
  }

  // Until the executor's watch has shown the pod, a pod deleted at once
  // would be one it never saw (and Volcano makes it again): waits for the
  // first progress of `key` (the pod waits for a node here).
  static void await_seen(KubernetesExecutor& executor, const ReplicaKey& key) {
    std::vector<ReplicaProgress> progress;
    while (std::none_of(progress.begin(), progress.end(),
                        [&](const ReplicaProgress& entry) { return entry.key == key; })) {
      pollfd readable{executor.wake_fd(), POLLIN, 0};
      if (::poll(&readable, 1, kGuardMs) <= 0) {
        ADD_FAILURE() << "the executor never showed replica " << key.rank;
        return;
      }
      executor.collect_progress(progress);
      std::vector<ReplicaExit> none;
      executor.collect_exits(0, none);  // resets the wake fd
    }
  }

  const json& task_named(const json& vcjob, const std::string& name) {
    for (const json& task : vcjob["spec"]["tasks"])
      if (task["name"] == name) return task;
    static const json none;
    ADD_FAILURE() << "no task " << name;
    return none;
  }

  protocol::JobSpec job_ = pytorch_job();
};

std::map<std::string, json> env_entries(const json& container) {
  std::map<std::string, json> env;
  for (const json& var : container["env"]) env[var["name"]] = var;
  return env;
}

// The container's env entries with a literal value (the last of a name wins,
// as in the kubelet).
std::map<std::string, std::string> literal_env(const json& container) {
  std::map<std::string, std::string> env;
  for (const json& var : container["env"])
    if (var.contains("value")) env[var["name"]] = var["value"];
  return env;
}

TEST_F(VolcanoJobExecutorTest, ThePartsJobKeepsTheJobsTasksAndPassesItsPluginsThrough) {
  auto executor = make_executor();
  ASSERT_TRUE(executor->volcano_mode()) << "discovery answered 200";
  executor->start(launch_for(job_, 0), 0);
  executor->start(launch_for(job_, 1), 0);
  executor->start(launch_for(job_, 2), 0);
  EXPECT_EQ(status_of(kVolcanoJobs + "/" + kJob), 404) << "created only once every replica is in";
  executor->started_all(kDispatch, 0);

  const json vcjob = get(kVolcanoJobs + "/" + kJob);
  EXPECT_EQ(vcjob["metadata"]["labels"], (json{{"gantry.io/agent", "east-agent"},
                                               {"gantry.io/job", "ddp"},
                                               {"gantry.io/dispatch-id", "7"},
                                               {"gantry.io/part", "0"}}));
  EXPECT_EQ(vcjob["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(vcjob["spec"]["minAvailable"], 3);
  EXPECT_EQ(vcjob["spec"]["queue"], "default") << "no member queue: Volcano's admission sets its own";
  // The job's plugins as given, with svc (names) and env (VC_TASK_INDEX) always on.
  EXPECT_EQ(vcjob["spec"]["plugins"],
            (json{{"pytorch", {"--master=master", "--worker=worker"}},
                  {"svc", json::array()},
                  {"env", json::array()}}));
  const json& tasks = vcjob["spec"]["tasks"];
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0]["name"], "master");
  EXPECT_EQ(tasks[0]["replicas"], 1);
  EXPECT_EQ(tasks[1]["name"], "worker");
  EXPECT_EQ(tasks[1]["replicas"], 2);

  const json& worker = tasks[1]["template"];
  EXPECT_EQ(worker["metadata"]["labels"]["gantry.io/task"], "worker");
  EXPECT_FALSE(worker["metadata"]["labels"].contains("gantry.io/rank")) << "one template, two ranks";
  EXPECT_EQ(worker["metadata"]["annotations"]["gantry.io/task-order"], "1");
  EXPECT_EQ(worker["spec"]["restartPolicy"], "Never");
  EXPECT_FALSE(worker["spec"].contains("nodeName"));
  EXPECT_FALSE(worker["spec"].contains("nodeSelector")) << "Volcano places the pods";
  const auto env = env_entries(worker["spec"]["containers"][0]);
  EXPECT_EQ(env.at("GANTRY_JOB")["value"], "ddp");
  EXPECT_EQ(env.at("GANTRY_TASK")["value"], "worker");
  EXPECT_EQ(env.at("EPOCHS")["value"], "3") << "the template's own env stays";
  EXPECT_EQ(env.at("GANTRY_NODE")["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
  for (const char* volcanos : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "GANTRY_REPLICA_INDEX"})
    EXPECT_FALSE(env.contains(volcanos)) << volcanos << " is Volcano's pytorch plugin's";

  // Volcano's controller makes the pods; its plugins tell each who it is.
  const json master = await_pod("ddp-7-master-0");
  const json worker_1 = await_pod("ddp-7-worker-1");
  const auto master_env = literal_env(master["spec"]["containers"][0]);
  const auto worker_env = literal_env(worker_1["spec"]["containers"][0]);
  EXPECT_EQ(worker_env.at("MASTER_ADDR"), "ddp-7-master-0.ddp-7");
  EXPECT_EQ(worker_env.at("WORLD_SIZE"), "3");
  EXPECT_EQ(master_env.at("RANK"), "0");
  EXPECT_EQ(worker_env.at("RANK"), "2");
  EXPECT_EQ(worker_env.at("VC_TASK_INDEX"), "1");
  EXPECT_EQ(worker_1["spec"]["hostname"], "ddp-7-worker-1");
  EXPECT_EQ(worker_1["spec"]["subdomain"], kJob) << "Volcano's svc plugin names it";
  EXPECT_EQ(get("/api/v1/namespaces/default/configmaps/ddp-7-svc")["data"]["worker.host"],
            "ddp-7-worker-0.ddp-7\nddp-7-worker-1.ddp-7");
}

// Volcano's ray plugin runs on the member: the part's Job passes it through,
// and the pods Volcano makes run the head and join it by the Job's names.
TEST_F(VolcanoJobExecutorTest, RayIsVolcanosToApplyToThePodsItMakes) {
  protocol::JobSpec job = pytorch_job();
  job.plugins = {
      {"ray", {"--head=master", "--headContainer=trainer", "--workerContainer=trainer"}}};
  auto executor = make_executor();
  start_part(*executor, job);
  EXPECT_EQ(get(kVolcanoJobs + "/" + kJob)["spec"]["plugins"]["ray"],
            json::array({"--head=master", "--headContainer=trainer", "--workerContainer=trainer"}));
  const json head = await_pod("ddp-7-master-0")["spec"]["containers"][0];
  EXPECT_EQ(head["command"],
            json::array({"sh", "-c",
                         "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 "
                         "--dashboard-port=8265 --ray-client-server-port=10001"}));
  const json worker = await_pod("ddp-7-worker-1")["spec"]["containers"][0];
  EXPECT_EQ(worker["command"],
            json::array({"sh", "-c", "ray start --block --address=ddp-7-master-0.ddp-7:6379"}));
  const json head_service = get("/api/v1/namespaces/default/services/ddp-7-head-svc");
  EXPECT_EQ(head_service["spec"]["selector"]["volcano.sh/task-spec"], "master");
}

TEST_F(VolcanoJobExecutorTest, WithoutAFrameworkPluginGantryNamesWhereTheGangMeets) {
  protocol::JobSpec job = ddp_job();  // worker x2, no plugins
  auto executor = make_executor();
  start_part(*executor, job);
  const json vcjob = get(kVolcanoJobs + "/" + kJob);
  const auto env = literal_env(vcjob["spec"]["tasks"][0]["template"]["spec"]["containers"][0]);
  EXPECT_EQ(env.at("MASTER_ADDR"), "ddp-7-worker-0.ddp-7") << "rank 0, by Volcano's svc name";
  EXPECT_EQ(env.at("MASTER_PORT"), "29500");
  EXPECT_EQ(env.at("WORLD_SIZE"), "2");
  const auto pod_env = literal_env(await_pod("ddp-7-worker-1")["spec"]["containers"][0]);
  EXPECT_EQ(pod_env.at("VC_TASK_INDEX"), "1") << "Volcano's env plugin: RANK is 0 + this";
}

TEST_F(VolcanoJobExecutorTest, DependsOnIsVolcanosToEnforce) {
  protocol::JobSpec job = job_;
  job.tasks[1].depends_on.names = {"master"};
  job.tasks[1].depends_on.iteration = "any";
  auto executor = make_executor();
  start_part(*executor, job);
  const json tasks = get(kVolcanoJobs + "/" + kJob)["spec"]["tasks"];
  EXPECT_FALSE(tasks[0].contains("dependsOn"));
  EXPECT_EQ(tasks[1]["dependsOn"], (json{{"name", {"master"}}, {"iteration", "any"}}))
      << "the agent records every replica at once; Volcano starts workers once the master runs";
}

TEST_F(VolcanoJobExecutorTest, PodsMapBackToReplicasByTaskAndIndex) {
  auto executor = make_executor();
  start_part(*executor, job_);
  await_pod("ddp-7-worker-1");
  set_pod_status("ddp-7-worker-1", failed_with(3));
  const auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 2})) << "worker 1 is the part's rank 2";
  EXPECT_EQ(exits[0].exit_code, 3);
}

TEST_F(VolcanoJobExecutorTest, StoppingThePartDeletesItsJobAndThePodsGoWithIt) {
  auto executor = make_executor();
  start_part(*executor, job_);
  for (const char* pod : {"ddp-7-master-0", "ddp-7-worker-0", "ddp-7-worker-1"}) await_pod(pod);
  for (std::uint32_t rank = 0; rank < 3; ++rank) executor->kill(ReplicaKey{kDispatch, rank});
  auto exits = await_exits(*executor, 3);
  EXPECT_EQ(status_of(kVolcanoJobs + "/" + kJob), 404);
  const json vcjob_pods = get(kPods + "?labelSelector=volcano.sh%2Fjob-name%3Dddp-7");
  EXPECT_TRUE(vcjob_pods["items"].empty()) << vcjob_pods.dump();
  std::sort(exits.begin(), exits.end(),
            [](const ReplicaExit& a, const ReplicaExit& b) { return a.key.rank < b.key.rank; });
  ASSERT_EQ(exits.size(), 3u);
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(exits[rank].key, (ReplicaKey{kDispatch, rank}));
    EXPECT_EQ(exits[rank].exit_code, 137);
  }
}

TEST_F(VolcanoJobExecutorTest, StoppingATasksHighestReplicaScalesTheTaskDown) {
  auto executor = make_executor();
  start_part(*executor, job_);
  await_pod("ddp-7-worker-1");
  executor->kill(ReplicaKey{kDispatch, 2});  // an elastic shrink: worker 1 leaves
  const auto exits = await_exits(*executor, 1);
  const json vcjob = get(kVolcanoJobs + "/" + kJob);
  EXPECT_EQ(task_named(vcjob, "worker")["replicas"], 1);
  EXPECT_EQ(vcjob["spec"]["minAvailable"], 2);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 2}));
  EXPECT_EQ(exits[0].exit_code, 137);
  EXPECT_EQ(status_of(kPods + "/ddp-7-worker-0"), 200) << "the others run on";
  EXPECT_EQ(status_of(kPods + "/ddp-7-master-0"), 200);
}

TEST_F(VolcanoJobExecutorTest, AddedReplicasRaiseTheirTasksReplicas) {
  auto executor = make_executor();
  protocol::JobSpec grown = job_;
  grown.tasks[1].replicas = 3;
  start_part(*executor, job_);
  ReplicaLaunch added = launch_for(grown, 3);  // worker 2, the part's next rank
  executor->start(added, 0);
  executor->started_all(kDispatch, 0);
  const json vcjob = get(kVolcanoJobs + "/" + kJob);
  EXPECT_EQ(task_named(vcjob, "worker")["replicas"], 3);
  EXPECT_EQ(vcjob["spec"]["minAvailable"], 4);
  await_pod("ddp-7-worker-2");
  set_pod_status("ddp-7-worker-2", failed_with(4));
  const auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 3}));
}

TEST_F(VolcanoJobExecutorTest, APodDeletedOutsideGantryEndsItsReplicaAndTheEndedRunsJobGoes) {
  protocol::JobSpec job = ddp_job();
  job.tasks[0].replicas = 1;
  auto executor = make_executor();
  start_part(*executor, job);
  await_seen(*executor, ReplicaKey{kDispatch, 0});
  ASSERT_EQ(client_.remove(kPods + "/ddp-7-worker-0").status, 200);
  const auto exits = await_exits(*executor, 1);  // its Job goes with this collect
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 137);
  EXPECT_EQ(status_of(kVolcanoJobs + "/" + kJob), 404)
      << "Volcano would make the pod again and run the replica a second time";
}

TEST_F(VolcanoJobExecutorTest, ALaterExecutorAdoptsThePodsWithTheirRanks) {
  {
    auto first = make_executor();
    start_part(*first, job_);
    for (const char* pod : {"ddp-7-master-0", "ddp-7-worker-0", "ddp-7-worker-1"}) await_pod(pod);
  }
  auto later = make_executor();
  const auto adopted = later->adopt();
  ASSERT_EQ(adopted.size(), 3u);
  const std::vector<std::pair<std::string, std::int32_t>> expected = {
      {"master", 0}, {"worker", 0}, {"worker", 1}};
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(adopted[rank].key, (ReplicaKey{kDispatch, rank}));
    EXPECT_EQ(adopted[rank].job, "ddp");
    EXPECT_EQ(adopted[rank].task, expected[rank].first);
    EXPECT_EQ(adopted[rank].task_index, expected[rank].second);
  }
  set_pod_status("ddp-7-worker-0", failed_with(5));
  const auto exits = await_exits(*later, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 1}));
  EXPECT_EQ(exits[0].exit_code, 5);
}

TEST_F(VolcanoJobExecutorTest, TheJobGoesToTheMemberQueueThePrepareOrTheAgentNames) {
  create("/apis/scheduling.volcano.sh/v1beta1/queues",
         {{"metadata", {{"name", "gpu-batch"}}}, {"status", {{"state", "Open"}}}});
  create("/apis/scheduling.volcano.sh/v1beta1/queues",
         {{"metadata", {{"name", "research"}}}, {"status", {{"state", "Open"}}}});
  KubernetesExecutor executor(client_, {.agent_identity = "east-agent",
                                        .mode = Mode::kVolcanoJob,
                                        .member_queue = "gpu-batch"});
  ReplicaLaunch launch = launch_of(job_, 0);
  executor.start(launch, 0);
  executor.started_all(kDispatch, 0);
  EXPECT_EQ(get(kVolcanoJobs + "/ddp-7")["spec"]["queue"], "gpu-batch");
  launch.key.dispatch = 9;
  launch.member_queue = "research";  // the Gantry queue's gantry.io/member-queue
  executor.start(launch, 0);
  executor.started_all(9, 0);
  EXPECT_EQ(get(kVolcanoJobs + "/ddp-9")["spec"]["queue"], "research");
}

TEST_F(VolcanoJobExecutorTest, AJobVolcanoRefusesEndsEveryReplicaOfThePart) {
  KubernetesExecutor executor(client_, {.agent_identity = "east-agent",
                                        .mode = Mode::kVolcanoJob,
                                        .member_queue = "no-such-queue"});
  executor.start(launch_for(job_, 0), 0);
  executor.start(launch_for(job_, 1), 0);
  executor.start(launch_for(job_, 2), 0);
  executor.started_all(kDispatch, 0);  // does not throw: the replicas end instead
  std::vector<ReplicaExit> exits;
  executor.collect_exits(0, exits);
  ASSERT_EQ(exits.size(), 3u);
  for (const ReplicaExit& exit : exits) EXPECT_EQ(exit.exit_code, 127);
  EXPECT_EQ(status_of(kVolcanoJobs + "/ddp-7"), 404);
}

TEST_F(VolcanoJobExecutorTest, TaskNamesVolcanoCannotTakeAreRefusedBeforeAdmission) {
  auto executor = make_executor();
  EXPECT_EQ(executor->check(job_), "");
  protocol::JobSpec job = job_;
  job.tasks[1].name = "Worker_1";
  EXPECT_TRUE(contains(executor->check(job), "spec.tasks[1].name: 'Worker_1' is no DNS-1123 label"))
      << executor->check(job);
  job.tasks[1].name = std::string(30, 'w');
  EXPECT_TRUE(contains(executor->check(job), "is too long for Volcano's pod names"));
}

TEST_F(VolcanoJobExecutorTest, AGangSplitOverClustersCannotUseVolcanosFrameworkPlugins) {
  KubernetesExecutor executor(client_, {.agent_identity = "east-agent",
                                        .mode = Mode::kVolcanoJob,
                                        .cross_cluster_rendezvous = true});
  EXPECT_EQ(executor.check_split(job_, 1), "");
  EXPECT_TRUE(contains(executor.check_split(job_, 2), "cannot use Volcano's pytorch plugin"));
  EXPECT_EQ(executor.check_split(ddp_job(), 2), "") << "no plugin: meets at part 0's agent";
  protocol::JobSpec ray = ddp_job();
  ray.plugins = {{"ray", {"--head=worker"}}};
  EXPECT_TRUE(contains(executor.check_split(ray, 2), "cannot use Volcano's ray plugin"));
}

}  // namespace
}  // namespace gantry::agents
