// Client::stream against the fixture API server: a pod's followed log arrives
// as the container prints it and ends when the container does; a refusal is
// the API server's Status; a stream stops when its caller asks.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "kube/client.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/guarded.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using testing::Guarded;

const std::string kPods = "/api/v1/namespaces/ns/pods";

json container_status(const std::string& name, const json& state) {
  return {{"name", name}, {"containerID", "containerd://" + name}, {"state", state}};
}

// A pod on a node whose containers run (the fixture keeps it as written).
json running_pod(const std::string& name, const std::vector<std::string>& containers) {
  json specs = json::array();
  json statuses = json::array();
  for (const std::string& container : containers) {
    specs.push_back({{"name", container}, {"image", "busybox"}});
    statuses.push_back(container_status(container, {{"running", json::object()}}));
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"nodeName", "node-0"}, {"containers", specs}}},
          {"status", {{"phase", "Running"}, {"containerStatuses", statuses}}}};
}

class PodLogStream : public ::testing::Test {
 protected:
  void prints(const std::string& pod, const std::string& text) {
    ASSERT_EQ(client_.post("/fixture/pods/ns/" + pod + "/log?container=main", text).status, 200);
  }

  support::TempDir dir_{"kube-stream"};
  FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  Client client_{ClusterAccess{.server = fixture_.url()}};
};

TEST_F(PodLogStream, AFollowedLogArrivesAsPrintedAndEndsWithItsContainer) {
  ASSERT_EQ(client_.post(kPods, running_pod("trainer", {"main"}).dump()).status, 201);
  prints("trainer", "step 1\n");
  Guarded<std::string> received;
  std::atomic<bool> stop{false};
  Client::WatchEnd end = Client::WatchEnd::kBroken;
  std::thread reader([&] {
    end = client_.stream(
        kPods + "/trainer/log?container=main&follow=true",
        [&](std::string_view data) { received.update([&](std::string& text) { text += data; }); },
        stop);
  });
  EXPECT_TRUE(received.await([](const std::string& text) { return text == "step 1\n"; }));
  prints("trainer", "step 2\n");
  EXPECT_TRUE(received.await([](const std::string& text) { return text == "step 1\nstep 2\n"; }));

  const json ended = {
      {"status",
       {{"containerStatuses", {container_status("main", {{"terminated", {{"exitCode", 0}}}})}}}}};
  ASSERT_EQ(client_.patch(kPods + "/trainer/status", ended.dump(), PatchType::kMerge).status, 200);
  reader.join();
  EXPECT_EQ(end, Client::WatchEnd::kServerClosed);
  EXPECT_EQ(received.snapshot(), "step 1\nstep 2\n");
}

TEST_F(PodLogStream, ARefusalIsTheApiServersStatus) {
  ASSERT_EQ(client_.post(kPods, running_pod("pair", {"main", "sidecar"}).dump()).status, 201);
  std::atomic<bool> stop{false};
  Response refusal;
  std::string received;
  const auto end = client_.stream(
      kPods + "/pair/log", [&](std::string_view data) { received += data; }, stop, &refusal);
  EXPECT_EQ(end, Client::WatchEnd::kHttpError);
  EXPECT_EQ(refusal.status, 400);
  EXPECT_EQ(json::parse(refusal.body)["message"],
            "a container name must be specified for pod pair, choose one of: [main sidecar]");
  EXPECT_EQ(received, "");
}

TEST_F(PodLogStream, AStreamStopsWhenItsCallerAsks) {
  ASSERT_EQ(client_.post(kPods, running_pod("quiet", {"main"}).dump()).status, 201);
  prints("quiet", "hello\n");
  Guarded<bool> arrived;
  std::atomic<bool> stop{false};
  Client::WatchEnd end = Client::WatchEnd::kBroken;
  std::thread reader([&] {
    end = client_.stream(
        kPods + "/quiet/log?container=main&follow=true",
        [&](std::string_view) { arrived.update([](bool& seen) { seen = true; }); }, stop);
  });
  EXPECT_TRUE(arrived.await([](bool seen) { return seen; }));
  stop = true;  // the container still runs: only the caller ends this stream
  reader.join();
  EXPECT_EQ(end, Client::WatchEnd::kStopped);
}

}  // namespace
}  // namespace gantry::kube
