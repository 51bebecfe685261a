// docs/gantryctl.md's describe examples are what gantryctl prints: each is
// rendered here from the hub's reply it stands for and compared with the
// docs' text, line for line, so a line added to a view shows up in the docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "console/cluster_views.hpp"
#include "console/describe_views.hpp"
#include "console/queue_views.hpp"

namespace gantry::console {
namespace {

// 2024-05-01T08:03:20Z: the docs' "now" (llm-pretrain submitted 3m20s ago).
constexpr std::int64_t kDocsNow = 1714550600000;
constexpr std::int64_t kMilliPerGi = 1024LL * 1024 * 1024 * 1000;

// The output under "$ COMMAND" in docs/gantryctl.md, up to its block's end.
std::string documented_output(const std::string& command) {
  std::ifstream file(std::string(GANTRY_SOURCE_DIR) + "/docs/gantryctl.md");
  std::stringstream text;
  text << file.rdbuf();
  const std::string docs = text.str();
  const std::string prompt = "$ " + command + "\n";
  const std::size_t start = docs.find(prompt);
  if (start == std::string::npos) return "(no example of " + command + ")";
  const std::size_t body = start + prompt.size();
  // Up to the block's end or the next command in the same block.
  const std::size_t end = std::min(docs.find("```", body), docs.find("\n$ ", body) + 1);
  return docs.substr(body, end - body);
}

protocol::DescribeReply llm_pretrain() {
  protocol::DescribeReply reply;
  reply.ok = true;
  protocol::JobInfo& job = reply.job;
  job.name = "llm-pretrain";
  job.queue = "research";
  job.phase = "Running";
  job.clusters = {"east"};
  job.priority = 100;
  job.replicas = 16;
  job.min_available = 16;
  job.requests = {{"cpu", 24000}, {"memory", 256 * kMilliPerGi}, {"nvidia.com/gpu", 16000}};
  job.submitted_ms = kDocsNow - 200'000;
  job.started_ms = kDocsNow - 100'000;
  job.tasks = {{"worker", 0, 16, 0, 0}};
  job.parts = {{"east", {{"worker", 16}}}};
  job.placement = "binpack";
  job.scores = {{"east", 40}, {"west", -100}};
  job.epoch = 1;
  job.time_limit_ms = 24 * 3600'000;
  job.max_retry = 3;
  job.submitter = "alice";
  reply.spec.name = job.name;
  reply.spec.priority_class = "high";
  reply.spec.max_retry = 3;
  protocol::ContainerSpec trainer;
  trainer.requests = {{"cpu", 1500}, {"memory", 16 * kMilliPerGi}, {"nvidia.com/gpu", 1000}};
  protocol::TaskSpec worker;
  worker.name = "worker";
  worker.replicas = 16;
  worker.node_selector = {{"nvidia.com/gpu.product", "H100"}};
  worker.containers = {trainer};
  reply.spec.tasks = {worker};
  reply.events = {
      "2024-05-01T08:00:00.000Z submitted",
      "2024-05-01T08:01:40.000Z dispatched to east (worker x16); scores: east 40, west -100",
      "2024-05-01T08:01:40.000Z admitted by east; committed",
      "2024-05-01T08:01:41.000Z running: every replica runs"};
  return reply;
}

TEST(DocsExamples, DescribeJobIsWhatGantryctlPrints) {
  EXPECT_EQ(render_job_description(llm_pretrain(), kDocsNow),
            documented_output("gantryctl describe job llm-pretrain"));
}

TEST(DocsExamples, DescribeQueueIsWhatGantryctlPrints) {
  protocol::QueueInfo research;
  research.name = "research";
  research.parent = "root";
  research.state = "Open";
  research.weight = 3;
  research.reclaimable = true;
  research.share = 0.5;
  research.allocated = {{"cpu", 24000}, {"nvidia.com/gpu", 16000}};
  research.pending = {{"nvidia.com/gpu", 8000}};
  research.declared_deserved = {{"nvidia.com/gpu", 24000}};
  research.deserved = {{"nvidia.com/gpu", 24000}};
  research.capability = {{"nvidia.com/gpu", 32000}};
  EXPECT_EQ(render_queue_description(research),
            documented_output("gantryctl describe queue research"));
}

// research declares what it deserves; batch declares nothing and gets its
// share by weight, which only -o wide shows.
std::vector<protocol::QueueInfo> research_and_batch() {
  protocol::QueueInfo research;
  research.name = "research";
  research.state = "Open";
  research.weight = 3;
  research.share = 0.5;
  research.allocated = {{"cpu", 24000}, {"nvidia.com/gpu", 16000}};
  research.pending = {{"cpu", 4000}, {"nvidia.com/gpu", 8000}};
  research.declared_deserved = {{"nvidia.com/gpu", 24000}};
  research.deserved = {{"cpu", 192000}, {"memory", 1536 * kMilliPerGi}, {"nvidia.com/gpu", 24000}};
  research.capability = {{"nvidia.com/gpu", 32000}};
  protocol::QueueInfo batch;
  batch.name = "batch";
  batch.state = "Open";
  batch.weight = 1;
  batch.share = 0.25;
  batch.allocated = {{"nvidia.com/gpu", 8000}};
  batch.deserved = {{"cpu", 64000}, {"memory", 512 * kMilliPerGi}, {"nvidia.com/gpu", 8000}};
  return {research, batch};
}

TEST(DocsExamples, GetQueuesIsWhatGantryctlPrints) {
  EXPECT_EQ(render_queues_table(research_and_batch()), documented_output("gantryctl get queues"));
  EXPECT_EQ(render_queues_table(research_and_batch(), true),
            documented_output("gantryctl get queues -o wide"));
}

protocol::ClusterInfo cluster(const std::string& name, std::int32_t nodes, std::int64_t gpus,
                              std::int64_t cpus, std::int64_t memory_gi) {
  protocol::ClusterInfo info;
  info.name = name;
  info.ready = true;
  info.nodes = nodes;
  info.capacity = {
      {"cpu", cpus * 1000}, {"memory", memory_gi * kMilliPerGi}, {"nvidia.com/gpu", gpus * 1000}};
  return info;
}

// By name, as gantryctl get sorts them (the hub keeps the order agents came in).
TEST(DocsExamples, GetClustersIsWhatGantryctlPrints) {
  protocol::ClusterInfo east = cluster("east", 4, 32, 256, 2048);
  east.allocated = {{"cpu", 12500}, {"memory", 128 * kMilliPerGi}, {"nvidia.com/gpu", 8000}};
  protocol::ClusterInfo west = cluster("west", 4, 32, 256, 2048);
  west.cordoned = true;
  west.allocated = {{"cpu", 24000}, {"memory", 256 * kMilliPerGi}, {"nvidia.com/gpu", 16000}};
  protocol::ClusterInfo north = cluster("north", 2, 16, 128, 1024);
  north.ready = false;
  std::vector<protocol::ClusterInfo> by_name{east, north, west};
  EXPECT_EQ(render_clusters_table(by_name), documented_output("gantryctl get clusters"));
}

}  // namespace
}  // namespace gantry::console
