// The kubernetes executor in pods mode against the fixture API server: the
// pods it creates, the exits it reads off the pod watch, kills, and adoption
// by a later executor (Volcano Job mode: volcano_job_executor_test.cpp).
#include <functional>
#include <regex>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"
#include "tests/agents/kube_executor_fixture.hpp"

namespace gantry::agents {
namespace {

using namespace kube_executor_testing;

TEST_F(KubernetesExecutorTest, CreatesOnePodPerReplicaWithLabelsEnvResourcesAndNode) {
  auto executor = make_executor();
  ASSERT_FALSE(executor->volcano_mode()) << "no Volcano API served";
  executor->start(launch_of(job_, 0), 0);
  executor->start(launch_of(job_, 1), 0);
  executor->started_all(kDispatch, 0);

  const json items = get(kPods)["items"];
  ASSERT_EQ(items.size(), 2u);
  const json& pod = items[1];
  EXPECT_EQ(pod["metadata"]["name"], "ddp-7-1");
  EXPECT_EQ(pod["metadata"]["labels"], (json{{"gantry.io/agent", "east-agent"},
                                             {"gantry.io/job", "ddp"},
                                             {"gantry.io/dispatch-id", "7"},
                                             {"gantry.io/rank", "1"},
                                             {"gantry.io/task", "worker"},
                                             {"gantry.io/part", "0"},
                                             {"scheduling.x-k8s.io/pod-group", "ddp-7"}}));
  EXPECT_EQ(pod["metadata"]["annotations"]["gantry.io/parts"], "1");
  EXPECT_EQ(pod["spec"]["nodeName"], "node-1");
  EXPECT_FALSE(pod["spec"].contains("schedulerName"));
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  const json& container = pod["spec"]["containers"][0];
  EXPECT_EQ(container["image"], "pytorch/pytorch:2.3");
  EXPECT_EQ(container["command"], json::array({"torchrun"}));
  EXPECT_EQ(container["args"], json::array({"train.py"}));
  EXPECT_EQ(container["resources"]["requests"],
            (json{{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(container["resources"]["limits"], (json{{"nvidia.com/gpu", "1"}}));
  const auto env = env_of(container);
  EXPECT_EQ(env.at("RANK"), "1") << "the replica's RANK wins over the container's";
  EXPECT_EQ(env.at("WORLD_SIZE"), "2");
  EXPECT_EQ(env.at("MASTER_ADDR"), "ddp-worker-0.ddp") << "rank 0's name, through the Service";
  EXPECT_EQ(env.at("MASTER_PORT"), "29500");
  EXPECT_EQ(env.at("VC_WORKER_HOSTS"), "ddp-worker-0.ddp,ddp-worker-1.ddp");
  EXPECT_EQ(env.at("VC_WORKER_NUM"), "2");
  EXPECT_EQ(pod["spec"]["hostname"], "ddp-worker-1");
  EXPECT_EQ(pod["spec"]["subdomain"], "ddp");
  EXPECT_EQ(env.at("GANTRY_JOB"), "ddp");
  EXPECT_EQ(env.at("EPOCHS"), "3");
  EXPECT_EQ(container["env"].size(), env.size()) << "no name twice";
}

TEST_F(KubernetesExecutorTest, EachRunGetsTheJobsHeadlessServiceSelectingOnlyItsPods) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  const std::string path = "/api/v1/namespaces/default/services/ddp";
  json service = get(path);
  EXPECT_EQ(service["spec"]["clusterIP"], "None");
  EXPECT_EQ(service["spec"]["publishNotReadyAddresses"], true) << "names resolve before ready";
  EXPECT_EQ(service["spec"]["selector"],
            (json{{"gantry.io/agent", "east-agent"}, {"gantry.io/dispatch-id", "7"}}));
  EXPECT_EQ(service["spec"]["ports"][0]["port"], 29500);

  // A later run of the same job takes the Service over: the names never
  // resolve to an earlier attempt's pods.
  ReplicaLaunch retry = launch_of(job_, 0);
  retry.key.dispatch = 8;
  executor->start(retry, 0);
  service = get(path);
  EXPECT_EQ(service["spec"]["selector"]["gantry.io/dispatch-id"], "8");
}

// Every field of the submitted template reaches the pod; what Gantry adds
// or sets is exactly the list docs/agents.md gives ("what a pod gets").
TEST_F(KubernetesExecutorTest, TheWholePodTemplateReachesThePodWithOnlyGantrysAdditions) {
  const protocol::JobSpec job = config::parse_volcano_job(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: full}
spec:
  tasks:
  - name: worker
    replicas: 1
    template:
      metadata:
        labels: {team: vision, gantry.io/job: not-this}
        annotations: {sidecar.istio.io/inject: "false"}
      spec:
        priorityClassName: high
        serviceAccountName: trainer
        imagePullSecrets: [{name: registry}]
        tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        nodeSelector: {nvidia.com/gpu.product: A100}
        securityContext: {runAsUser: 1000, fsGroup: 2000}
        volumes:
        - name: data
          persistentVolumeClaim: {claimName: imagenet}
        - name: shm
          emptyDir: {medium: Memory, sizeLimit: 8Gi}
        initContainers:
        - {name: fetch, image: busybox, command: [sh, -c, "echo ok"]}
        containers:
        - name: trainer
          image: pytorch/pytorch:2.3
          imagePullPolicy: IfNotPresent
          command: [torchrun]
          args: [train.py, --epochs, "3"]
          ports: [{containerPort: 29500, name: rdzv}]
          env:
          - {name: EPOCHS, value: "3"}
          - name: POD_IP
            valueFrom: {fieldRef: {fieldPath: status.podIP}}
          volumeMounts:
          - {name: data, mountPath: /data, readOnly: true}
          - {name: shm, mountPath: /dev/shm}
          resources:
            requests: {cpu: "2", nvidia.com/gpu: 1}
            limits: {nvidia.com/gpu: 1}
)");
  auto executor = make_executor(Mode::kPods);
  ReplicaLaunch launch = launch_of(job, 0);
  launch.world_size = 1;
  executor->start(launch, 0);
  const json pod = get(kPods + "/full-7-0");
  const json submitted = json::parse(job.tasks[0].pod_template);

  // The spec, field by field: only Gantry's own fields are added or set.
  const std::regex gantrys(
      R"(/(restartPolicy|nodeName|hostname|subdomain)|/containers/0/(env|volumeMounts)/([0-9]+|-)|/volumes/([0-9]+|-))");
  for (const json& change : json::diff(submitted["spec"], pod["spec"])) {
    const std::string where = change["path"];
    EXPECT_TRUE(std::regex_match(where, gantrys)) << change.dump();
    EXPECT_NE(change["op"], "remove") << change.dump();
  }
  // The container's own env entries are kept, in order, valueFrom included.
  const json& env = pod["spec"]["containers"][0]["env"];
  EXPECT_EQ(env[0], submitted["spec"]["containers"][0]["env"][0]);
  EXPECT_EQ(env[1], submitted["spec"]["containers"][0]["env"][1]);
  // The template's labels and annotations, with Gantry's added; Gantry's own
  // label names (how pods map back to replicas) are Gantry's.
  const json& metadata = pod["metadata"];
  EXPECT_EQ(metadata["labels"]["team"], "vision");
  EXPECT_EQ(metadata["labels"]["gantry.io/job"], "full");
  EXPECT_EQ(metadata["annotations"]["sidecar.istio.io/inject"], "false");
  EXPECT_EQ(job.tasks[0].tolerations.size(), 1u);
}

// As Volcano's svc and ssh plugins: the host lists in a ConfigMap at
// /etc/volcano, the run's own keys in a Secret at the ssh key path.
TEST_F(KubernetesExecutorTest, PluginFilesAreMountedFromARunsConfigMapAndSshSecret) {
  protocol::JobSpec job = ddp_job();
  job.plugins = {{"ssh", {}}};
  auto executor = make_executor(Mode::kPods);
  executor->start(launch_of(job, 0), 0);
  executor->start(launch_of(job, 1), 0);
  const json hosts = get("/api/v1/namespaces/default/configmaps/ddp-7-svc");
  EXPECT_EQ(hosts["data"]["worker.host"], "ddp-worker-0.ddp\nddp-worker-1.ddp");
  const json keys = get("/api/v1/namespaces/default/secrets/ddp-7-ssh");
  for (const char* file : {"id_rsa", "id_rsa.pub", "authorized_keys", "config"})
    EXPECT_TRUE(keys["data"].contains(file)) << file;
  const json spec = get(kPods + "/ddp-7-1")["spec"];
  EXPECT_EQ(spec["volumes"][0]["configMap"]["name"], "ddp-7-svc");
  EXPECT_EQ(spec["volumes"][1]["secret"]["secretName"], "ddp-7-ssh");
  EXPECT_EQ(spec["volumes"][1]["secret"]["defaultMode"], 0600);
  const json& mounts = spec["containers"][0]["volumeMounts"];
  EXPECT_EQ(mounts[0]["mountPath"], "/etc/volcano");
  EXPECT_EQ(mounts[1]["mountPath"], "/root/.ssh");
  EXPECT_EQ(get("/api/v1/namespaces/default/secrets")["items"].size(), 1u)
      << "one key pair per run, not per replica";
}

// As Volcano's ray plugin: the head's container runs a head node and opens
// its ports (one already there is kept, not doubled), the workers' join head
// replica 0 by its name; args and other containers are left alone.
TEST_F(KubernetesExecutorTest, RaySetsTheHeadsAndWorkersCommandsAndTheHeadsPorts) {
  const protocol::JobSpec job = config::parse_volcano_job(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: rc}
spec:
  plugins: {ray: ["--dashboardPort=9000"]}
  tasks:
  - name: head
    replicas: 1
    template:
      spec:
        containers:
        - name: head
          image: rayproject/ray:2.49.0
          args: [--verbose]
          ports: [{containerPort: 6379, name: redis}]
        - {name: sidecar, image: busybox, command: [sleep, infinity]}
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - {name: worker, image: rayproject/ray:2.49.0}
)");
  auto executor = make_executor(Mode::kPods);
  ASSERT_EQ(executor->check(job), "");
  ReplicaLaunch head = launch_of(job, 0);
  executor->start(head, 0);
  ReplicaLaunch worker = launch_of(job, 1);
  worker.task = 1;
  worker.index = 1;
  executor->start(worker, 0);

  const json head_pod = get(kPods + "/rc-7-0");
  const json& ray_head = head_pod["spec"]["containers"][0];
  EXPECT_EQ(ray_head["command"],
            json::array({"sh", "-c",
                         "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 "
                         "--dashboard-port=9000 --ray-client-server-port=10001"}));
  EXPECT_EQ(ray_head["args"], json::array({"--verbose"}));
  EXPECT_EQ(ray_head["ports"], json::parse(R"([{"containerPort": 6379, "name": "redis"},
                                              {"containerPort": 9000, "name": "dashboard"},
                                              {"containerPort": 10001, "name": "client-server"}])"));
  EXPECT_EQ(head_pod["spec"]["containers"][1]["command"], json::array({"sleep", "infinity"}));
  EXPECT_FALSE(head_pod["spec"]["containers"][1].contains("ports"));
  const json ray_worker = get(kPods + "/rc-7-1")["spec"]["containers"][0];
  EXPECT_EQ(ray_worker["command"],
            json::array({"sh", "-c", "ray start --block --address=rc-head-0.rc:6379"}));
  EXPECT_FALSE(ray_worker.contains("ports"));
  EXPECT_EQ(env_of(ray_worker).at("VC_HEAD_HOSTS"), "rc-head-0.rc") << "svc comes with ray";
}

TEST_F(KubernetesExecutorTest, APendingPodSaysWhyItWaitsAndARunningOneThatItRuns) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  // Progress until the latest says what `wanted` looks for (a new pod first
  // reports "starting" with no status yet).
  std::vector<ReplicaProgress> progress;
  const auto await_progress = [&](const std::function<bool(const ReplicaProgress&)>& wanted) {
    progress.clear();
    while (progress.empty() || !wanted(progress.back())) {
      pollfd readable{executor->wake_fd(), POLLIN, 0};
      if (::poll(&readable, 1, kGuardMs) <= 0) {
        ADD_FAILURE() << "no progress came";
        return;
      }
      std::vector<ReplicaExit> exits;
      executor->collect_progress(progress);
      executor->collect_exits(0, exits);
    }
  };
  set_pod_status("ddp-7-0", {{"phase", "Pending"},
                             {"conditions",
                              {{{"type", "PodScheduled"},
                                {"status", "False"},
                                {"reason", "Unschedulable"},
                                {"message", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}}}}});
  await_progress([](const ReplicaProgress& p) { return p.reason.starts_with("Unschedulable"); });
  EXPECT_FALSE(progress.back().running);
  EXPECT_EQ(progress.back().reason,
            "Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");

  set_pod_status("ddp-7-0", {{"phase", "Pending"},
                             {"conditions", json::array()},
                             {"containerStatuses",
                              {{{"name", "trainer"},
                                {"state",
                                 {{"waiting",
                                   {{"reason", "ErrImagePull"}, {"message", "not found"}}}}}}}}});
  await_progress([](const ReplicaProgress& p) { return p.reason != ""; });
  ASSERT_EQ(progress.size(), 1u) << "one change, one report";
  EXPECT_EQ(progress[0].reason, "trainer: ErrImagePull: not found");

  set_pod_status("ddp-7-0", {{"phase", "Running"}, {"containerStatuses", json::array()}});
  await_progress([](const ReplicaProgress& p) { return p.running; });
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_TRUE(executor->reports_running());
}

TEST_F(KubernetesExecutorTest, SplitPartsAreRefusedWithoutACrossClusterRendezvous) {
  auto executor = make_executor();
  EXPECT_EQ(executor->check_split(job_, 1), "");
  EXPECT_TRUE(contains(executor->check_split(job_, 2), "--cross-cluster-rendezvous"));
  KubernetesExecutor across(client_, {.agent_identity = "east-agent",
                                      .mode = Mode::kPods,
                                      .cross_cluster_rendezvous = true});
  EXPECT_EQ(across.check_split(job_, 2), "");
  protocol::JobSpec ray = ddp_job();
  ray.tasks[0].name = "head";
  ray.plugins = {{"ray", {}}};
  EXPECT_TRUE(contains(across.check_split(ray, 2), "cannot use Volcano's ray plugin"))
      << "its workers join the head by a name no other cluster resolves";
  EXPECT_EQ(across.check_split(ray, 1), "");
}

TEST_F(KubernetesExecutorTest, EndedRunsLoseTheirObjectsOnceNewerOnesEnded) {
  KubernetesExecutor executor(client_,
                              {.agent_identity = "east-agent", .mode = Mode::kPods, .keep_ended = 1});
  for (DispatchId dispatch : {7, 8}) {
    ReplicaLaunch launch = launch_of(job_, 0);
    launch.key.dispatch = dispatch;
    executor.start(launch, 0);
    set_pod_status("ddp-" + std::to_string(dispatch) + "-0", {{"phase", "Succeeded"}});
    ASSERT_EQ(await_exits(executor, 1).size(), 1u);
  }
  // The exits of both went out; the older run's pod is gone, the newer kept.
  std::vector<ReplicaExit> none;
  executor.collect_exits(0, none);
  EXPECT_EQ(status_of(kPods + "/ddp-7-0"), 404);
  EXPECT_EQ(status_of(kPods + "/ddp-8-0"), 200);
  EXPECT_EQ(status_of("/api/v1/namespaces/default/services/ddp"), 200)
      << "the newer run's Service stays";
}

TEST_F(KubernetesExecutorTest, ANamedSchedulerGetsTheNodesHostnameLabelAsASelector) {
  auto executor = make_executor(Mode::kPods, "gantry-scheduler");
  ReplicaLaunch launch = launch_of(job_, 0);
  launch.node_hostname = "ip-10-0-0-7";
  executor->start(launch, 0);
  EXPECT_EQ(get(kPods + "/ddp-7-0")["spec"]["nodeSelector"],
            (json{{"kubernetes.io/hostname", "ip-10-0-0-7"}}));
}

TEST_F(KubernetesExecutorTest, ANamedSchedulerGetsTheNodeAsASelector) {
  auto executor = make_executor(Mode::kPods, "gantry-scheduler");
  executor->start(launch_of(job_, 0), 0);
  const json spec = get(kPods + "/ddp-7-0")["spec"];
  EXPECT_EQ(spec["schedulerName"], "gantry-scheduler");
  EXPECT_EQ(spec["nodeSelector"], (json{{"kubernetes.io/hostname", "node-0"}}));
  EXPECT_FALSE(spec.contains("nodeName"));
}

TEST_F(KubernetesExecutorTest, LongNamesAreShortenedToValidNamesThatKeepTheirSuffix) {
  const protocol::JobSpec job = ddp_job("Very_Long." + std::string(80, 'x'));
  auto executor = make_executor(Mode::kPods);
  executor->start(launch_of(job, 1), 0);
  const json metadata = get(kPods)["items"][0]["metadata"];
  const std::string name = metadata["name"];
  EXPECT_LE(name.size(), 63u);
  EXPECT_TRUE(std::regex_match(name, std::regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?"))) << name;
  EXPECT_TRUE(name.ends_with("-7-1")) << name;
  EXPECT_LE(metadata["labels"]["gantry.io/job"].get<std::string>().size(), 63u);
  EXPECT_EQ(metadata["annotations"]["gantry.io/job"], job.name);
}

TEST_F(KubernetesExecutorTest, SucceededIsExitZeroAndFailedIsTheContainersExitCode) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  executor->start(launch_of(job_, 1), 0);

  set_pod_status("ddp-7-0", {{"phase", "Running"}});
  set_pod_status("ddp-7-0", {{"phase", "Succeeded"}});
  auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 0}));
  EXPECT_EQ(exits[0].exit_code, 0);
  EXPECT_EQ(exits[0].signal, 0);

  set_pod_status("ddp-7-1", failed_with(3));
  exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 1}));
  EXPECT_EQ(exits[0].exit_code, 3);
}

TEST_F(KubernetesExecutorTest, KillDeletesThePodAndReportsSigkill) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  executor->kill(ReplicaKey{kDispatch, 0});
  EXPECT_EQ(status_of(kPods + "/ddp-7-0"), 404);
  const auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 0}));
  EXPECT_EQ(exits[0].exit_code, 137);
  EXPECT_EQ(exits[0].signal, 9);
}

TEST_F(KubernetesExecutorTest, APodDeletedOutsideGantryExitsWithSigkill) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  ASSERT_EQ(client_.remove(kPods + "/ddp-7-0").status, 200);
  const auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 0}));
  EXPECT_EQ(exits[0].exit_code, 137);
  EXPECT_EQ(exits[0].signal, 9);
}

TEST_F(KubernetesExecutorTest, ARefusedCreateThrowsAndItsKillIsReportedAtOnce) {
  create(kPods, {{"metadata", {{"name", "ddp-7-0"}}}});  // the name is taken
  auto executor = make_executor();
  try {
    executor->start(launch_of(job_, 0), 0);
    FAIL() << "start() accepted a pod the server refused";
  } catch (const std::runtime_error& error) {
    EXPECT_TRUE(contains(error.what(), "create pod default/ddp-7-0: HTTP 409")) << error.what();
  }
  executor->kill(ReplicaKey{kDispatch, 0});
  ASSERT_TRUE(wake_fd_is_readable(*executor)) << "reported without waiting for any watch";
  std::vector<ReplicaExit> exits;
  executor->collect_exits(0, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 137);
  EXPECT_EQ(status_of(kPods + "/ddp-7-0"), 200) << "the other pod is left alone";
}

TEST_F(KubernetesExecutorTest, PodsOfOtherAgentsAreIgnored) {
  auto executor = make_executor();
  executor->start(launch_of(job_, 0), 0);
  json other = get(kPods + "/ddp-7-0");
  other["metadata"] = {{"name", "other"}, {"labels", other["metadata"]["labels"]}};
  other["metadata"]["labels"]["gantry.io/agent"] = "west-agent";
  other["status"] = failed_with(42);
  create(kPods, other);
  set_pod_status("ddp-7-0", {{"phase", "Succeeded"}});  // after the other pod's events
  const auto exits = await_exits(*executor, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 0) << "the first exit is our pod's, not west-agent's";
}

TEST_F(KubernetesExecutorTest, AdoptListsThePodsAnEarlierExecutorLeft) {
  {
    auto first = make_executor();
    first->start(launch_of(job_, 0), 0);
    first->start(launch_of(job_, 1), 0);
    first->shutdown();
  }
  ASSERT_EQ(get(kPods)["items"].size(), 2u) << "pods outlive their executor";
  set_pod_status("ddp-7-1", {{"phase", "Succeeded"}});

  auto second = make_executor();
  const auto adopted = second->adopt();
  ASSERT_EQ(adopted.size(), 2u);
  EXPECT_EQ(adopted[0].key, (ReplicaKey{kDispatch, 0}));
  EXPECT_EQ(adopted[0].job, "ddp");
  EXPECT_EQ(adopted[0].task, "worker");
  EXPECT_EQ(adopted[0].node, "node-0");
  EXPECT_EQ(adopted[0].part, 0);
  EXPECT_EQ(adopted[0].parts, 1);
  EXPECT_EQ(adopted[0].task_index, 0);
  EXPECT_FALSE(adopted[0].ended);
  EXPECT_EQ(adopted[1].key, (ReplicaKey{kDispatch, 1}));
  EXPECT_EQ(adopted[1].task_index, 1);
  EXPECT_TRUE(adopted[1].ended);
  EXPECT_EQ(adopted[1].exit_code, 0);

  // The one still running is tracked from now on.
  set_pod_status("ddp-7-0", failed_with(5));
  const auto exits = await_exits(*second, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].key, (ReplicaKey{kDispatch, 0}));
  EXPECT_EQ(exits[0].exit_code, 5);
}

TEST_F(KubernetesExecutorTest, CheckAsksForAnImage) {
  auto executor = make_executor();
  EXPECT_EQ(executor->check(job_), "");
  protocol::JobSpec job = ddp_job();
  job.tasks[0].containers[0].image.clear();
  EXPECT_EQ(executor->check(job),
            "spec.tasks[0].template.spec.containers[0].image: the kubernetes executor needs an "
            "image");
  job.tasks[0].containers.clear();
  EXPECT_TRUE(contains(executor->check(job), "spec.tasks[0].template.spec.containers: "));
}

TEST_F(KubernetesExecutorTest, AnIdentityThatIsNoLabelValueIsRefused) {
  try {
    KubernetesExecutor executor(client_, {.agent_identity = "east agent"});
    FAIL() << "accepted an identity with a space";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(error.field(), "agent identity");
    EXPECT_EQ(error.value(), "east agent");
  }
}

}  // namespace
}  // namespace gantry::agents
