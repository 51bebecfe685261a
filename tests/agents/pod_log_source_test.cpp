// A pod's log as the agent reads it for gantryctl logs: what the container
// printed, read in bounded pieces; the end of a followed log when the
// container ends; the API server's refusal as the error.
#include "agents/pod_log_source.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents {
namespace {

using json = nlohmann::json;

const std::string kPods = "/api/v1/namespaces/jobs/pods";

class PodLogSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", "train-1-0"}}},
        {"spec",
         {{"nodeName", "gpu-0"},
          {"containers", {{{"name", "trainer"}}, {{"name", "log-shipper"}}}}}},
        {"status",
         {{"phase", "Running"},
          {"containerStatuses",
           {{{"name", "trainer"}, {"containerID", "containerd://t"}, {"state", {{"running", {}}}}},
            {{"name", "log-shipper"},
             {"containerID", "containerd://s"},
             {"state", {{"running", {}}}}}}}}}};
    ASSERT_EQ(client_.post(kPods, pod.dump()).status, 201);
  }

  void prints(const std::string& text) {
    ASSERT_EQ(client_.post("/fixture/pods/jobs/train-1-0/log?container=trainer", text).status, 200);
  }

  // Everything the source gives until nothing more may come; the guard
  // fails a source that never ends instead of hanging.
  static std::string read_all(LogSource& source, std::size_t piece) {
    std::string text;
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < guard) {
      if (source.read(text, piece)) continue;
      if (!source.more_may_come(true)) return text;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polled, as the agent loop does
    }
    ADD_FAILURE() << "the log did not end";
    return text;
  }

  support::TempDir dir_{"pod-log-source"};
  kube::testing::FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
};

TEST_F(PodLogSourceTest, PathNamesTheContainerTailAndFollow) {
  EXPECT_EQ(pod_log_path("jobs", "p", "trainer", -1, false),
            "/api/v1/namespaces/jobs/pods/p/log?container=trainer");
  EXPECT_EQ(pod_log_path("jobs", "p", "trainer", 5, true),
            "/api/v1/namespaces/jobs/pods/p/log?container=trainer&tailLines=5&follow=true");
}

TEST_F(PodLogSourceTest, ReadsTheNamedContainersLogInBoundedPiecesToItsEnd) {
  prints("line 1\nline 2\nline 3\n");
  PodLogSource source(client_, pod_log_path("jobs", "train-1-0", "trainer", 2, false));
  const std::string text = read_all(source, 4);
  EXPECT_EQ(text, "line 2\nline 3\n");
  EXPECT_EQ(source.error(), "");
}

TEST_F(PodLogSourceTest, TheApiServersRefusalIsTheError) {
  PodLogSource source(client_, "/api/v1/namespaces/jobs/pods/train-1-0/log");
  EXPECT_EQ(read_all(source, 1024), "");
  EXPECT_EQ(source.error(),
            "a container name must be specified for pod train-1-0, choose one of: "
            "[trainer log-shipper]");
}

TEST_F(PodLogSourceTest, AFollowedLogStopsWhenTheSourceGoes) {
  prints("waiting for data\n");
  auto source = std::make_unique<PodLogSource>(
      client_, pod_log_path("jobs", "train-1-0", "trainer", -1, true));
  std::string text;
  while (!source->read(text, 1024)) {
    ASSERT_TRUE(source->more_may_come(true));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polled, as the agent loop does
  }
  EXPECT_EQ(text, "waiting for data\n");
  EXPECT_TRUE(source->more_may_come(true)) << "the container still runs";
  source.reset();  // gantryctl went away: the GET ends and its thread is joined
}

}  // namespace
}  // namespace gantry::agents
