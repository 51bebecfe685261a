// GPUs counted by product (node label nvidia.com/gpu.product) next to
// nvidia.com/gpu: the pool, queue shares, capabilities and reasons of jobs
// that select a product.
#include <gtest/gtest.h>

#include "hub/scheduler.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::nodes;

Labels product_label(const std::string& product) {
  return {{std::string(kGpuProductLabel), product}};
}

ResourceId product_id(const std::string& product) {
  ResourceId id = kNoResource;
  EXPECT_TRUE(gpu_product_resource(product, id));
  return id;
}

class GpuProductTest : public testing::CoreHarness {
 protected:
  // east: 2 x 8 A100 + 2 x 8 T4; west: 4 x 8 T4. 64 GPUs: 16 A100, 48 T4.
  GpuProductTest() {
    add_cluster("east", east_nodes());
    add_cluster("west", nodes(4, 8, 64, "west-t4", product_label("T4")));
  }
  static std::vector<NodeSpec> east_nodes() {
    std::vector<NodeSpec> specs = nodes(2, 8, 64, "a100", product_label("A100"));
    for (NodeSpec& spec : nodes(2, 8, 64, "east-t4", product_label("T4"))) specs.push_back(spec);
    return specs;
  }
  void add_queue(const std::string& name, bool reclaimable = true) {
    QueueSpec spec;
    spec.name = name;
    spec.reclaimable = reclaimable;
    apply_queue(spec);
  }
  // `gpu_count` GPUs as 8-GPU replicas (or one smaller replica); `product`
  // empty: any GPU.
  JobId submit(const std::string& name, const std::string& queue_name, std::int64_t gpu_count,
               const std::string& product = "") {
    JobRequest request = testing::gpu_job(name, gpu_count, queue_name);
    if (!product.empty())
      for (TaskShape& task : request.gang.tasks) task.node_selector = product_label(product);
    return CoreHarness::submit(std::move(request));
  }
};

TEST_F(GpuProductTest, PoolCountsEachProductApartFromAllGpus) {
  const ResourceVector pool = core.pool_capacity();
  EXPECT_EQ(pool.get(kGpu), 64 * kMilli);
  EXPECT_EQ(pool.get(product_id("A100")), 16 * kMilli);
  EXPECT_EQ(pool.get(product_id("T4")), 48 * kMilli);
  EXPECT_EQ(ResourceNames::name(product_id("A100")), "nvidia.com/gpu/A100");
}

TEST_F(GpuProductTest, JobSelectingAProductIsMeasuredAgainstThatProductsPool) {
  // 32 GPUs fit in either cluster, but only 16 of the pool's are A100.
  submit("a100-32", "default", 32, "A100");
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(job("a100-32").reason.kind, PendingReason::Kind::kExceedsEveryCluster);
  const std::string text = core.reason_text(job("a100-32"));
  EXPECT_NE(text.find("needs 32 nvidia.com/gpu/A100"), std::string::npos) << text;
  EXPECT_NE(text.find("(east) has 16 nvidia.com/gpu/A100"), std::string::npos) << text;
  // Short of GPUs in a cluster and of A100s too, the A100s are named.
  submit("a100-40", "default", 40, "A100");
  pass();
  const std::string larger = core.reason_text(job("a100-40"));
  EXPECT_NE(larger.find("needs 40 nvidia.com/gpu/A100"), std::string::npos) << larger;
  // The same size on any GPU runs.
  submit("any-32", "default", 32);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"any-32"});
}

TEST_F(GpuProductTest, QueueIsChargedForTheProductOnlyWhenItsJobAskedForIt) {
  add_queue("team");
  submit("pinned", "team", 8, "A100");
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"pinned"});
  EXPECT_EQ(queue("team").allocated.get(product_id("A100")), 8 * kMilli);
  // An unpinned job may land on A100 nodes: the node's A100s are taken, the
  // queue is charged for GPUs only.
  submit("anywhere", "team", 8);
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"anywhere"});
  EXPECT_EQ(queue("team").allocated.get(kGpu), 16 * kMilli);
  EXPECT_EQ(queue("team").allocated.get(product_id("A100")), 8 * kMilli);
  // Every GPU here has a product: what is free by product adds up to what is free.
  for (ClusterIndex c = 0; c < core.cluster_count(); ++c) {
    const ResourceVector& free = core.cluster(c).total_free();
    EXPECT_EQ(free.get(product_id("A100")) + free.get(product_id("T4")), free.get(kGpu))
        << core.cluster(c).name();
  }
}

TEST_F(GpuProductTest, DominantShareCountsTheScarceProduct) {
  add_queue("a100-team", false);
  add_queue("t4-team", false);
  add_queue("filler", false);
  submit("a-running", "a100-team", 8, "A100");  // 8/64 GPUs, but 8/16 A100
  submit("t-running", "t4-team", 16, "T4");     // 16/64 GPUs, 16/48 T4
  submit("filler", "filler", 7, "A100");        // leaves 1 A100 free
  ASSERT_EQ(pass().dispatched.size(), 3u);
  submit("a-next", "a100-team", 1, "A100");
  submit("t-next", "t4-team", 1, "A100");
  // By GPUs alone a100-team (1/8) would go before t4-team (1/4); by dominant
  // share it holds half of the A100s against t4-team's third of the T4s.
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"t-next"});
  EXPECT_EQ(job("a-next").phase, JobPhase::kPending);
  EXPECT_GT(core.queues().weighted_share(*core.find_queue("a100-team")),
            core.queues().weighted_share(*core.find_queue("t4-team")));
}

TEST_F(GpuProductTest, CapabilityPerProductCapsOnlyJobsOfThatProduct) {
  QueueSpec spec;
  spec.name = "capped";
  spec.capability.set(product_id("A100"), 8 * kMilli);
  apply_queue(spec);
  submit("a100-8", "capped", 8, "A100");
  submit("a100-more", "capped", 8, "A100");
  submit("t4-16", "capped", 16, "T4");
  EXPECT_EQ(pass().dispatched, (std::vector<std::string>{"a100-8", "t4-16"}));
  EXPECT_EQ(job("a100-more").reason.kind, PendingReason::Kind::kQueueAtCapability);
  const std::string text = core.reason_text(job("a100-more"));
  EXPECT_NE(text.find("nvidia.com/gpu/A100 would reach 16 of 8"), std::string::npos) << text;
}

TEST_F(GpuProductTest, ReportedAllocationIsCountedUnderTheProduct) {
  std::vector<NodeSpec> busy = east_nodes();
  busy[0].allocated.set(kGpu, 6 * kMilli);  // something outside Gantry holds 6 GPUs
  core.report_usage(*core.find_cluster("east"), busy, {});
  const ClusterState& east = core.cluster(*core.find_cluster("east"));
  EXPECT_EQ(east.total_free().get(product_id("A100")), 10 * kMilli);
  EXPECT_EQ(east.total_allocatable().get(product_id("A100")), 16 * kMilli);
}

}  // namespace
}  // namespace gantry::hub
