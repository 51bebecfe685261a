// Tables, JSON and describe output for what the hub lists.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "console/cluster_views.hpp"
#include "console/describe_views.hpp"
#include "console/job_views.hpp"
#include "console/queue_views.hpp"

namespace gantry::console {
namespace {

constexpr std::int64_t kNow = 1714550400000;  // 2024-05-01T08:00:00Z

protocol::JobInfo running_job() {
  protocol::JobInfo job;
  job.name = "llm";
  job.queue = "research";
  job.phase = "Running";
  job.clusters = {"east", "west"};
  job.priority = 100;
  job.replicas = 16;
  job.min_available = 16;
  job.requeues = 1;
  job.requests = {{"cpu", 1500}, {"memory", 1024000}, {"nvidia.com/gpu", 8000}};
  job.submitted_ms = kNow - 200000;
  job.started_ms = kNow - 100000;
  job.tasks = {{"worker", 0, 16, 0, 0}};
  job.parts = {{"east", {{"worker", 10}}}, {"west", {{"worker", 6}}}};
  job.placement = "binpack";
  job.scores = {{"east", 40}, {"west", -100}};
  job.epoch = 2;
  job.time_limit_ms = 90 * 60'000;
  return job;
}

protocol::JobInfo pending_job() {
  protocol::JobInfo job;
  job.name = "small";
  job.queue = "default";
  job.phase = "Pending";
  job.reason = "no cluster has 8 nvidia.com/gpu free";
  job.submitted_ms = kNow - 45000;
  return job;
}

TEST(JobViews, TableShowsEveryColumn) {
  EXPECT_EQ(render_jobs_table({running_job(), pending_job()}, kNow),
            "NAME    QUEUE      PHASE     CLUSTERS    AGE     REASON\n"
            "llm     research   Running   east,west   3m20s\n"
            "small   default    Pending   <none>      45s     no cluster has 8 nvidia.com/gpu "
            "free\n");
}

TEST(JobViews, JsonIsAnArrayWithNaturalUnitsAndTimestamps) {
  EXPECT_EQ(render_jobs_json({running_job()}),
            R"([
  {
    "name": "llm",
    "queue": "research",
    "phase": "Running",
    "clusters": [
      "east",
      "west"
    ],
    "reason": "",
    "priority": 100,
    "replicas": 16,
    "minAvailable": 16,
    "requeues": 1,
    "retries": 0,
    "maxRetry": 0,
    "lastEvent": null,
    "lastAction": "",
    "requests": {
      "cpu": 1.5,
      "memory": 1024,
      "nvidia.com/gpu": 8
    },
    "submitted": "2024-05-01T07:56:40.000Z",
    "started": "2024-05-01T07:58:20.000Z",
    "finished": null,
    "timeLimit": "1h30m",
    "tasks": [
      {
        "name": "worker",
        "pending": 0,
        "running": 16,
        "succeeded": 0,
        "failed": 0
      }
    ],
    "parts": [
      {
        "cluster": "east",
        "replicas": {
          "worker": 10
        }
      },
      {
        "cluster": "west",
        "replicas": {
          "worker": 6
        }
      }
    ],
    "placement": "binpack",
    "scores": [
      {
        "cluster": "east",
        "score": 40
      },
      {
        "cluster": "west",
        "score": -100
      }
    ],
    "epoch": 2
  }
]
)");
  EXPECT_EQ(render_jobs_json({}), "[]\n");
}

TEST(JobViews, JsonOfAJobWithoutATimeLimitHasNull) {
  const std::string json = render_jobs_json({pending_job()});
  EXPECT_NE(json.find("    \"timeLimit\": null,\n"), std::string::npos) << json;
}

TEST(JobViews, JsonOfAnUnplacedJobHasEmptyPlacementKeys) {
  const std::string json = render_jobs_json({pending_job()});
  EXPECT_NE(json.find("    \"tasks\": [],\n"
                      "    \"parts\": [],\n"
                      "    \"placement\": \"\",\n"
                      "    \"scores\": [],\n"
                      "    \"epoch\": 0\n"
                      "  }\n"),
            std::string::npos)
      << json;
}

TEST(JobViews, ClustersColumnNamesEveryPartOfASplitJob) {
  protocol::JobInfo split = running_job();
  split.clusters = {"east"};  // a hub that lists only where rank 0 runs
  EXPECT_EQ(join_clusters(placed_clusters(split)), "east,west");
  split.clusters = {"west", "east"};
  EXPECT_EQ(join_clusters(placed_clusters(split)), "west,east");
  split.clusters.clear();
  split.parts.clear();
  EXPECT_EQ(join_clusters(placed_clusters(split)), "<none>");
}

protocol::ClusterInfo east() {
  protocol::ClusterInfo cluster;
  cluster.name = "east";
  cluster.ready = true;
  cluster.nodes = 4;
  cluster.labels = {{"region", "eu"}};
  cluster.capacity = {{"cpu", 256000}, {"memory", 2199023255552000}, {"nvidia.com/gpu", 32000}};
  cluster.allocated = {{"cpu", 12500}, {"memory", 137438953472000}, {"nvidia.com/gpu", 8000}};
  cluster.last_seen_ms = kNow - 1000;
  return cluster;
}

TEST(ClusterViews, TableShowsAllocatedOverCapacity) {
  protocol::ClusterInfo west;
  west.name = "west";
  EXPECT_EQ(render_clusters_table({east(), west}),
            "NAME   STATUS     NODES   GPU(alloc/cap)   CPU        MEMORY\n"
            "east   Ready      4       8/32             12.5/256   128Gi/2Ti\n"
            "west   NotReady   0       0/0              0/0        0/0\n");
}

TEST(ClusterViews, StatusNamesReadinessAndCordon) {
  protocol::ClusterInfo cluster;
  cluster.ready = true;
  EXPECT_EQ(cluster_status(cluster), "Ready");
  cluster.cordoned = true;
  EXPECT_EQ(cluster_status(cluster), "Ready,SchedulingDisabled");
  cluster.ready = false;
  EXPECT_EQ(cluster_status(cluster), "NotReady,SchedulingDisabled");
  cluster.cordoned = false;
  EXPECT_EQ(cluster_status(cluster), "NotReady");
}

TEST(ClusterViews, StatusAndJsonCarryTheAgentsNotReadyReason) {
  protocol::ClusterInfo cluster;
  cluster.name = "lab";
  cluster.not_ready_reason = "syncing";
  EXPECT_EQ(cluster_status(cluster), "NotReady(syncing)");
  cluster.cordoned = true;
  EXPECT_EQ(cluster_status(cluster), "NotReady(syncing),SchedulingDisabled");
  const auto json = nlohmann::json::parse(render_clusters_json({cluster}));
  EXPECT_EQ(json[0]["ready"], false);
  EXPECT_EQ(json[0]["notReadyReason"], "syncing");
}

// A Karmada Cluster without GPU resource models: one summary node, whose fit
// is an upper bound; said where it takes work, short as kubectl's flags are.
TEST(ClusterViews, StatusFlagsAReadySummaryFit) {
  protocol::ClusterInfo cluster;
  cluster.fit_note = "no node models: summary fit";
  EXPECT_EQ(cluster_status(cluster), "NotReady") << "no placements: the fit does not matter";
  cluster.ready = true;
  EXPECT_EQ(cluster_status(cluster), "Ready,SummaryFit");
  cluster.cordoned = true;
  EXPECT_EQ(cluster_status(cluster), "Ready,SummaryFit,SchedulingDisabled");
  const auto json = nlohmann::json::parse(render_clusters_json({cluster}));
  EXPECT_EQ(json[0]["fitNote"], "no node models: summary fit");
  EXPECT_EQ(nlohmann::json::parse(render_clusters_json({east()}))[0]["fitNote"], "");
}

TEST(ClusterViews, TableShowsTheFourStates) {
  std::vector<protocol::ClusterInfo> clusters(4);
  const char* names[] = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    clusters[i].name = names[i];
    clusters[i].ready = i % 2 == 0;
    clusters[i].cordoned = i >= 2;
  }
  EXPECT_EQ(render_clusters_table(clusters),
            "NAME   STATUS                        NODES   GPU(alloc/cap)   CPU   MEMORY\n"
            "a      Ready                         0       0/0              0/0   0/0\n"
            "b      NotReady                      0       0/0              0/0   0/0\n"
            "c      Ready,SchedulingDisabled      0       0/0              0/0   0/0\n"
            "d      NotReady,SchedulingDisabled   0       0/0              0/0   0/0\n");
}

TEST(ClusterViews, JsonHasResourceObjectsAndLabels) {
  protocol::ClusterInfo cordoned = east();
  cordoned.cordoned = true;
  const std::string json = render_clusters_json({east(), cordoned});
  EXPECT_NE(json.find("\"ready\": true,\n    \"cordoned\": false,\n"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ready\": true,\n    \"cordoned\": true,\n"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("cpu": 12.5)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("memory": 2199023255552)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("nvidia.com/gpu": 32)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("region": "eu")"), std::string::npos) << json;
  EXPECT_EQ(json.front(), '[');
}

protocol::QueueInfo research() {
  protocol::QueueInfo queue;
  queue.name = "research";
  queue.parent = "root";
  queue.weight = 3;
  queue.state = "Open";
  queue.allocated = {{"nvidia.com/gpu", 8000}};
  queue.pending = {{"cpu", 4000}, {"nvidia.com/gpu", 16000}};
  queue.declared_deserved = {{"nvidia.com/gpu", 12000}};
  queue.deserved = {{"nvidia.com/gpu", 12000}};
  queue.share = 2.0 / 3.0;
  return queue;
}

TEST(QueueViews, TableShowsResourcesAndTwoDecimalShare) {
  protocol::QueueInfo capped = research();
  capped.name = "capped";
  capped.capability = {{"nvidia.com/gpu", 24000}, {"nvidia.com/gpu/A100", 8000}};
  EXPECT_EQ(render_queues_table({research(), capped}),
            "NAME       STATE   WEIGHT   PENDING                   ALLOCATED          DESERVED     "
            "       "
            "CAPABILITY                                SHARE\n"
            "research   Open    3        cpu=4,nvidia.com/gpu=16   nvidia.com/gpu=8   "
            "nvidia.com/gpu=12   "
            "-                                         0.67\n"
            "capped     Open    3        cpu=4,nvidia.com/gpu=16   nvidia.com/gpu=8   "
            "nvidia.com/gpu=12   "
            "nvidia.com/gpu=24,nvidia.com/gpu/A100=8   0.67\n");
}

TEST(QueueViews, JsonHasEveryField) {
  const std::string json = render_queues_json({research()});
  for (const char* expected :
       {R"("name": "research")", R"("parent": "root")", R"("weight": 3)", R"("state": "Open")",
        R"("capability": {})", R"("guarantee": {})", R"("share": 0.6666666666666666)",
        R"("deserved": {)", R"("declaredDeserved": {)", R"("pending": {)", R"("allocated": {)"}) {
    EXPECT_NE(json.find(expected), std::string::npos) << expected << " missing from\n" << json;
  }
}

TEST(DescribeViews, JobShowsSpecTasksStatusAndEvents) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = running_job();
  reply.spec.name = "llm";
  reply.spec.priority_class = "high";
  reply.spec.annotations = {{"gantry.io/sim-duration", "30s"}};
  protocol::ContainerSpec container;
  container.requests = {{"cpu", 1000}, {"nvidia.com/gpu", 1000}};
  protocol::TaskSpec worker;
  worker.name = "worker";
  worker.replicas = 16;
  worker.node_selector = {{"nvidia.com/gpu.product", "H100"}};
  worker.containers = {container, container};
  reply.spec.tasks = {worker};
  reply.events = {"submitted", "dispatched to east"};

  const std::string text = render_job_description(reply, kNow);
  for (const char* expected :
       {"Name:            llm\n", "Phase:           Running\n", "Clusters:        east,west\n",
        "Reason:          <none>\n", "Priority Class:  high\n", "Max Retry:       3\n",
        "Started:         2024-05-01T07:58:20.000Z (100s ago)\n", "Finished:        <none>\n",
        "Time Limit:      1h30m\n", "cpu=1500m, memory=1Ki, nvidia.com/gpu=8",
        "  worker   16         cpu=2,nvidia.com/gpu=2   0         16        0           0        "
        "nvidia.com/gpu.product=H100\n",
        "Events:\n  submitted\n  dispatched to east\n"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n"
                                                      << text;
  }
}

protocol::TaskSpec task_named(const std::string& name, std::int32_t replicas) {
  protocol::TaskSpec task;
  task.name = name;
  task.replicas = replicas;
  return task;
}

TEST(DescribeViews, JobWithoutATimeLimitSaysNone) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = pending_job();
  const std::string text = render_job_description(reply, kNow);
  EXPECT_NE(text.find("Time Limit:      none\n"), std::string::npos) << text;
}

protocol::JobInfo reserved_job() {
  protocol::JobInfo job = pending_job();
  job.planned_start_ms = kNow + 12 * 60'000;
  job.planned_cluster = "east";
  job.planned_nodes = {"east-1", "east-2"};
  return job;
}

TEST(DescribeViews, ReservedJobShowsWhenAndWhereItIsPlannedToStart) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = reserved_job();
  const std::string text = render_job_description(reply, kNow);
  const std::size_t line = text.find("Planned Start:   ");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.find(" (in 12m) on east: east-1, east-2\n", line), std::string::npos) << text;
  EXPECT_LT(text.find("Started:"), line) << "right after Started";
  EXPECT_GT(text.find("Finished:"), line) << text;
  reply.job = pending_job();
  EXPECT_EQ(render_job_description(reply, kNow).find("Planned Start"), std::string::npos)
      << "no reservation, no line";
}

TEST(JobViews, JsonOfAReservedJobHasItsPlan) {
  const std::string json = render_jobs_json({reserved_job()});
  EXPECT_NE(json.find("    \"plannedCluster\": \"east\",\n"
                      "    \"plannedNodes\": [\n"
                      "      \"east-1\",\n"
                      "      \"east-2\"\n"
                      "    ]\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("    \"plannedStart\": \""), std::string::npos) << json;
}

TEST(DescribeViews, SplitJobShowsEveryPartAndTheScores) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = running_job();
  reply.job.placement = "spread";
  reply.job.epoch = 3;
  // The spec's order (worker before master), not the map's, orders each part.
  reply.spec.tasks = {task_named("worker", 8), task_named("master", 1)};
  reply.job.parts = {{"east", {{"master", 1}, {"worker", 4}}}, {"west", {{"worker", 4}}}};
  const std::string text = render_job_description(reply, kNow);
  EXPECT_NE(text.find("Annotations:     <none>\n"
                      "Placement:\n"
                      "  Policy:  spread\n"
                      "  Epoch:   3\n"
                      "  Split:   across 2 clusters\n"
                      "  Parts:   east: worker x4, master x1\n"
                      "           west: worker x4\n"
                      "  Scores:  east 40, west -100\n"
                      "Tasks:\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Clusters:        east,west\n"), std::string::npos) << text;
}

TEST(DescribeViews, PlacementShowsNothingForEmptyLists) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = pending_job();
  reply.job.placement = "binpack";
  EXPECT_NE(render_job_description(reply, kNow)
                .find("Placement:\n  Policy:  binpack\n  Epoch:   0\nTasks:\n"),
            std::string::npos);

  reply.job.epoch = 1;
  reply.job.parts = {{"east", {{"trainer", 2}}}};  // a task the spec does not list still shows
  const std::string placed = render_job_description(reply, kNow);
  EXPECT_NE(placed.find("  Epoch:   1\n  Parts:   east: trainer x2\nTasks:\n"), std::string::npos)
      << placed;
  EXPECT_EQ(placed.find("Split:"), std::string::npos) << placed;
  EXPECT_EQ(placed.find("Scores:"), std::string::npos) << placed;
}

TEST(DescribeViews, QueueAndClusterListEveryResource) {
  const std::string queue = render_queue_description(research());
  EXPECT_NE(
      queue.find(
          "RESOURCE         ALLOCATED   PENDING   DESERVED   FAIR SHARE   GUARANTEE   CAPABILITY"),
      std::string::npos)
      << queue;
  EXPECT_NE(
      queue.find("nvidia.com/gpu   8           16        12         12           -           -"),
      std::string::npos)
      << queue;
  const std::string cluster = render_cluster_description(east(), kNow);
  EXPECT_NE(cluster.find("Ready:      True\n"), std::string::npos) << cluster;
  EXPECT_NE(cluster.find("Cordoned:   False\n"), std::string::npos) << cluster;
  EXPECT_NE(cluster.find("Last Seen:  2024-05-01T07:59:59.000Z (1s ago)\n"), std::string::npos)
      << cluster;
  EXPECT_NE(cluster.find("memory           128Gi       2Ti"), std::string::npos) << cluster;
}

TEST(DescribeViews, ReplicaRequestsSumContainers) {
  protocol::TaskSpec task;
  task.containers.resize(2);
  task.containers[0].requests = {{"cpu", 500}};
  task.containers[1].requests = {{"cpu", 250}, {"memory", 1000}};
  EXPECT_EQ(replica_requests(task), (protocol::ResourceList{{"cpu", 750}, {"memory", 1000}}));
}

}  // namespace
}  // namespace gantry::console
