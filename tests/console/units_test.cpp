#include "console/units.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace gantry::console {
namespace {

TEST(MilliToDecimal, CpuMilliCoresBecomeCores) {
  EXPECT_EQ(milli_to_decimal(1500), "1.5");
  EXPECT_EQ(milli_to_decimal(250), "0.25");
  EXPECT_EQ(milli_to_decimal(1), "0.001");
  EXPECT_EQ(milli_to_decimal(64000), "64");
  EXPECT_EQ(milli_to_decimal(0), "0");
}

TEST(MilliToDecimal, MemoryMilliBytesBecomeBytesExactly) {
  EXPECT_EQ(milli_to_decimal(1024000), "1024");
  // 512 GiB: beyond what float formatting of bytes would keep exact in milli form.
  EXPECT_EQ(milli_to_decimal(549755813888000), "549755813888");
  EXPECT_EQ(milli_to_decimal(std::numeric_limits<std::int64_t>::max()), "9223372036854775.807");
}

TEST(MilliToDecimal, CountsBecomeNumbersAndNegativesKeepTheirSign) {
  EXPECT_EQ(milli_to_decimal(8000), "8");
  EXPECT_EQ(milli_to_decimal(-1500), "-1.5");
  EXPECT_EQ(milli_to_decimal(-1), "-0.001");
  EXPECT_EQ(milli_to_decimal(std::numeric_limits<std::int64_t>::min()), "-9223372036854775.808");
}

TEST(FormatResources, UsesHumanQuantitiesPerResource) {
  const protocol::ResourceList resources{
      {"cpu", 1500}, {"memory", 17179869184000}, {"nvidia.com/gpu", 8000}};
  EXPECT_EQ(format_resources(resources), "cpu=1500m,memory=16Gi,nvidia.com/gpu=8");
  EXPECT_EQ(format_resources(resources, ", "), "cpu=1500m, memory=16Gi, nvidia.com/gpu=8");
  EXPECT_EQ(format_resources({}), "<none>");
}

TEST(FormatUsage, ShowsAllocatedOverCapacityWithZeroForMissing) {
  const protocol::ResourceList allocated{{"cpu", 12000}};
  const protocol::ResourceList capacity{{"cpu", 64000}, {"memory", 549755813888000}};
  EXPECT_EQ(format_usage("cpu", allocated, capacity), "12/64");
  EXPECT_EQ(format_usage("memory", allocated, capacity), "0/512Gi");
}

TEST(GpuResources, AreRecognisedAcrossVendorsAndSummed) {
  EXPECT_TRUE(is_gpu_resource("nvidia.com/gpu"));
  EXPECT_TRUE(is_gpu_resource("amd.com/gpu"));
  EXPECT_FALSE(is_gpu_resource("nvidia.com/gpu.product"));
  EXPECT_FALSE(is_gpu_resource("cpu"));
  EXPECT_EQ(total_gpu_milli({{"nvidia.com/gpu", 8000}, {"amd.com/gpu", 4000}, {"cpu", 1000}}),
            12000);
}

}  // namespace
// One style per resource in every view: a capacity reads as written (get
// clusters said 2304Gi, get queues 2.3Ti, describe queue 2288Gi of one pool).
TEST(ReadableQuantity, IsTheExactQuantityWhileShortAndRoundedOnlyWhenNot) {
  constexpr std::int64_t kGi = 1024LL * 1024 * 1024 * 1000;
  EXPECT_EQ(format_quantity_readable("memory", 2304 * kGi), "2304Gi");
  EXPECT_EQ(format_quantity_readable("memory", 2288 * kGi), "2288Gi");
  EXPECT_EQ(format_quantity_readable("memory", 10240 * kGi), "10Ti");
  EXPECT_EQ(format_quantity_readable("memory", 10000 * kGi), "9.8Ti");
  EXPECT_EQ(format_quantity_readable("cpu", 1500), "1500m");
  EXPECT_EQ(format_quantity_readable("cpu", 288000), "288");
  EXPECT_EQ(format_quantity_readable("cpu", 12500), "12.5");
  EXPECT_EQ(format_quantity_readable("nvidia.com/gpu/A100", 3200), "3.2");
  EXPECT_EQ(format_usage("memory", {{"memory", 2288 * kGi}}, {{"memory", 2304 * kGi}}),
            "2288Gi/2304Gi");
}

}  // namespace gantry::console
