// The NVML loader against the FIXTURE libnvidia-ml.so.1 (tests/fixtures/nvml):
// scripted GPUs read exactly, NVML's failures named with their code, and an
// absent or foreign library meaning "no GPUs on this node".
#include "agents/nvml.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

const std::string kFixtureLibrary = std::string(GANTRY_FAKE_NVML_DIR) + "/libnvidia-ml.so.1";

// Each test scripts the fixture's GPUs; the fixture reads the script at nvmlInit_v2.
class NvmlTest : public ::testing::Test {
 protected:
  void script(const std::string& text) {
    ::setenv("GANTRY_FAKE_NVML_SCRIPT", dir_.write("nvml-script", text).c_str(), 1);
  }
  void TearDown() override { ::unsetenv("GANTRY_FAKE_NVML_SCRIPT"); }

 private:
  support::TempDir dir_{"gantry-nvml-test"};
};

TEST_F(NvmlTest, ReadsEveryScriptedGpuExactly) {
  script(
      "name=NVIDIA A100-SXM4-80GB memory_total=85899345920 memory_used=1073741824 "
      "utilization=37 processes=2\n"
      "# an idle one\n"
      "name=NVIDIA H100 80GB HBM3 memory_total=85520809984 memory_used=0 utilization=0 "
      "processes=0\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  EXPECT_EQ(nvml.load_error(), "");

  const GpuProbe probe = nvml.sample();
  EXPECT_EQ(probe.error, "");
  ASSERT_EQ(probe.gpus.size(), 2u);
  const protocol::GpuUsage& busy = probe.gpus[0];
  EXPECT_EQ(busy.index, 0);
  EXPECT_EQ(busy.product, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(busy.memory_total_bytes, 85899345920);
  EXPECT_EQ(busy.memory_used_bytes, 1073741824);
  EXPECT_EQ(busy.utilization_percent, 37);
  EXPECT_EQ(busy.processes, 2);
  const protocol::GpuUsage& idle = probe.gpus[1];
  EXPECT_EQ(idle.index, 1);
  EXPECT_EQ(idle.product, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(idle.memory_total_bytes, 85520809984);
  EXPECT_EQ(idle.memory_used_bytes, 0);
  EXPECT_EQ(idle.utilization_percent, 0);
  EXPECT_EQ(idle.processes, 0);
}

TEST_F(NvmlTest, EverySampleReadsTheGpusAgain) {
  script("name=NVIDIA L4 memory_total=24159191040 memory_used=512 utilization=5 processes=1\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  EXPECT_EQ(nvml.sample().gpus.size(), 1u);
  const GpuProbe again = nvml.sample();
  ASSERT_EQ(again.gpus.size(), 1u);
  EXPECT_EQ(again.gpus[0].product, "NVIDIA L4");
}

TEST_F(NvmlTest, DriverWithoutGpusIsNoErrorAndNoGpus) {
  script("# no GPU on this node\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  const GpuProbe probe = nvml.sample();
  EXPECT_TRUE(probe.gpus.empty());
  EXPECT_EQ(probe.error, "");
}

TEST_F(NvmlTest, InitFailureNamesNvmlsErrorAndCode) {
  script("init_error=9\n");
  Nvml nvml(kFixtureLibrary);
  EXPECT_FALSE(nvml.loaded());
  EXPECT_EQ(nvml.load_error(),
            "nvmlInit_v2 failed: Driver Not Loaded (NVML error 9): no GPUs on this node");
  const GpuProbe probe = nvml.sample();
  EXPECT_TRUE(probe.gpus.empty());
  EXPECT_EQ(probe.error, nvml.load_error());
}

TEST_F(NvmlTest, InitErrorCodeIsReportedAsScripted) {
  script("init_error=12\n");
  Nvml nvml(kFixtureLibrary);
  EXPECT_FALSE(nvml.loaded());
  EXPECT_NE(nvml.load_error().find("(NVML error 12)"), std::string::npos) << nvml.load_error();
}

TEST_F(NvmlTest, MissingLibraryPathMeansNoGpus) {
  Nvml nvml("/nonexistent/gantry/libnvidia-ml.so.1");
  EXPECT_FALSE(nvml.loaded());
  EXPECT_EQ(nvml.load_error(),
            "/nonexistent/gantry/libnvidia-ml.so.1 not found: no GPUs on this node");
  const GpuProbe probe = nvml.sample();
  EXPECT_TRUE(probe.gpus.empty());
  EXPECT_EQ(probe.error, nvml.load_error());
}

TEST_F(NvmlTest, LibraryNameTheLoaderCannotFindMeansNoGpus) {
  Nvml nvml("libgantry-absent-nvml.so.1");
  EXPECT_FALSE(nvml.loaded());
  EXPECT_EQ(nvml.load_error(), "libgantry-absent-nvml.so.1 not found: no GPUs on this node");
}

TEST_F(NvmlTest, LibraryWithoutNvmlFunctionsIsRefused) {
  Nvml nvml("libm.so.6");
  EXPECT_FALSE(nvml.loaded());
  EXPECT_EQ(nvml.load_error(), "libm.so.6 has no nvmlInit_v2: no GPUs on this node");
  EXPECT_TRUE(nvml.sample().gpus.empty());
}

TEST_F(NvmlTest, UnreadableGpuIsLeftOutAndNamed) {
  script(
      "name=NVIDIA A100-SXM4-40GB memory_total=42949672960 memory_used=0 utilization=0\n"
      "name=NVIDIA A100-SXM4-40GB memory_total=42949672960 memory_error=15\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  const GpuProbe probe = nvml.sample();
  ASSERT_EQ(probe.gpus.size(), 1u);
  EXPECT_EQ(probe.gpus[0].index, 0);
  EXPECT_EQ(probe.error, "GPU 1: nvmlDeviceGetMemoryInfo failed: GPU is lost (NVML error 15)");
}

TEST_F(NvmlTest, UnsupportedUtilizationReadsAsZero) {
  script(
      "name=NVIDIA A100-SXM4-80GB memory_total=85899345920 memory_used=4096 utilization=80 "
      "utilization_error=3 processes=1\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  const GpuProbe probe = nvml.sample();
  EXPECT_EQ(probe.error, "");
  ASSERT_EQ(probe.gpus.size(), 1u);
  EXPECT_EQ(probe.gpus[0].utilization_percent, 0);
  EXPECT_EQ(probe.gpus[0].memory_used_bytes, 4096);
  EXPECT_EQ(probe.gpus[0].processes, 1);
}

TEST_F(NvmlTest, OtherUtilizationFailureLeavesTheGpuOut) {
  script("name=NVIDIA T4 memory_total=16106127360 utilization_error=15\n");
  Nvml nvml(kFixtureLibrary);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  const GpuProbe probe = nvml.sample();
  EXPECT_TRUE(probe.gpus.empty());
  EXPECT_EQ(probe.error,
            "GPU 0: nvmlDeviceGetUtilizationRates failed: GPU is lost (NVML error 15)");
}

}  // namespace
}  // namespace gantry::agents
