// The pending reason names one resource and one cluster, chosen the same way
// whatever order the clusters joined in (the hub keeps them in joining order,
// which changes between runs).
#include <gtest/gtest.h>

#include <string>

#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::CoreHarness;
using testing::nodes;

JobRequest job_needing(const std::string& name, std::int64_t gpus, std::int64_t cpus) {
  ResourceVector per_replica;
  per_replica.set(kGpu, gpus * kMilli);
  per_replica.set(kCpu, cpus * kMilli);
  JobRequest request;
  request.name = name;
  request.queue = "default";
  request.gang = make_uniform_gang(1, per_replica);
  return request;
}

class PendingReasonTest : public CoreHarness {
 protected:
  // cpu-poor has the GPUs but too few cores for the job; gpu-busy has the
  // cores, but a filler (too many cores for cpu-poor) holds half its GPUs.
  std::string reason_with_clusters_joining(bool cpu_poor_first) {
    const auto cpu_poor = [&] { add_cluster("cpu-poor", nodes(1, 8, 16, "cpu-poor")); };
    const auto gpu_busy = [&] { add_cluster("gpu-busy", nodes(1, 8, 64, "gpu-busy")); };
    if (cpu_poor_first) {
      cpu_poor();
      gpu_busy();
    } else {
      gpu_busy();
      cpu_poor();
    }
    submit(job_needing("filler", 4, 40));
    EXPECT_EQ(pass().dispatched, std::vector<std::string>{"filler"});
    submit(job_needing("waiting", 8, 20));
    EXPECT_TRUE(pass().dispatched.empty());
    EXPECT_EQ(job("waiting").reason.kind, PendingReason::Kind::kInsufficientCapacity);
    return core.reason_text(job("waiting"));
  }
};

constexpr const char* kExpected =
    "not enough free capacity: needs 8 nvidia.com/gpu; the most free in one cluster is 4 "
    "nvidia.com/gpu (gpu-busy)";

TEST_F(PendingReasonTest, ShortOfDifferentResourcesTheReasonNamesOneInOneUnit) {
  const std::string reason = reason_with_clusters_joining(true);
  EXPECT_TRUE(reason.starts_with(kExpected)) << reason;
}

TEST_F(PendingReasonTest, TheReasonDoesNotDependOnTheOrderClustersJoinedIn) {
  const std::string reason = reason_with_clusters_joining(false);
  EXPECT_TRUE(reason.starts_with(kExpected)) << reason;
}

}  // namespace
}  // namespace gantry::hub
