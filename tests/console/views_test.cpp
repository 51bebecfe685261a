// Tables, JSON and describe output for what the hub lists.
#include <gtest/gtest.h>

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
    "requests": {
      "cpu": 1.5,
      "memory": 1024,
      "nvidia.com/gpu": 8
    },
    "submitted": "2024-05-01T07:56:40.000Z",
    "started": "2024-05-01T07:58:20.000Z",
    "finished": null,
    "tasks": [
      {
        "name": "worker",
        "pending": 0,
        "running": 16,
        "succeeded": 0,
        "failed": 0
      }
    ]
  }
]
)");
  EXPECT_EQ(render_jobs_json({}), "[]\n");
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
            "NAME   READY   NODES   GPU(alloc/cap)   CPU          MEMORY\n"
            "east   True    4       8/32             12500m/256   128Gi/2Ti\n"
            "west   False   0       0/0              0/0          0/0\n");
}

TEST(ClusterViews, JsonHasResourceObjectsAndLabels) {
  const std::string json = render_clusters_json({east()});
  EXPECT_NE(json.find(R"("ready": true)"), std::string::npos) << json;
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
  queue.deserved = {{"nvidia.com/gpu", 12000}};
  queue.share = 2.0 / 3.0;
  return queue;
}

TEST(QueueViews, TableShowsResourcesAndTwoDecimalShare) {
  protocol::QueueInfo capped = research();
  capped.name = "capped";
  capped.capability = {{"nvidia.com/gpu", 24000}, {"nvidia.com/gpu/A100", 8000}};
  EXPECT_EQ(render_queues_table({research(), capped}),
            "NAME       STATE   WEIGHT   PENDING                   ALLOCATED          DESERVED            "
            "CAPABILITY                                SHARE\n"
            "research   Open    3        cpu=4,nvidia.com/gpu=16   nvidia.com/gpu=8   nvidia.com/gpu=12   "
            "-                                         0.67\n"
            "capped     Open    3        cpu=4,nvidia.com/gpu=16   nvidia.com/gpu=8   nvidia.com/gpu=12   "
            "nvidia.com/gpu=24,nvidia.com/gpu/A100=8   0.67\n");
}

TEST(QueueViews, JsonHasEveryField) {
  const std::string json = render_queues_json({research()});
  for (const char* expected :
       {R"("name": "research")", R"("parent": "root")", R"("weight": 3)", R"("state": "Open")",
        R"("capability": {})", R"("guarantee": {})", R"("share": 0.6666666666666666)",
        R"("deserved": {)", R"("pending": {)", R"("allocated": {)"}) {
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
        "cpu=1500m, memory=1Ki, nvidia.com/gpu=8",
        "  worker   16         cpu=2,nvidia.com/gpu=2   0         16        0           0        "
        "nvidia.com/gpu.product=H100\n",
        "Events:\n  submitted\n  dispatched to east\n"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n"
                                                      << text;
  }
}

TEST(DescribeViews, QueueAndClusterListEveryResource) {
  const std::string queue = render_queue_description(research());
  EXPECT_NE(queue.find("RESOURCE         ALLOCATED   PENDING   DESERVED   GUARANTEE   CAPABILITY"),
            std::string::npos)
      << queue;
  EXPECT_NE(queue.find("nvidia.com/gpu   8           16        12         -           -"),
            std::string::npos)
      << queue;
  const std::string cluster = render_cluster_description(east(), kNow);
  EXPECT_NE(cluster.find("Ready:      True\n"), std::string::npos) << cluster;
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
