// ClusterRole with a Kubernetes view, against the fixture API server, driven
// as the agent loop drives it (poll its fds, then on_polled) with the loop's
// time given by the test: nothing is served before the view has synced (the
// core says "syncing", no nodes from node reports, no scores, no
// AddOnPlacementScore); the Lease renewal runs off the loop, so a renewal the
// server does not answer leaves the loop serving, and counts as lost at the
// renew deadline.
#include "agents/cluster_role.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include "agents/agent_core.hpp"
#include "agents/sim_executor.hpp"
#include "hub/resources.hpp"
#include "protocol/envelope.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr auto kAwaitGuard = 30s;  // a failure guard, not a sleep
constexpr TimeMs kT0 = 1'000'000;  // the loop's time, frozen unless a test moves it
const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/gantry-system/leases";
const std::string kScore =
    "/apis/cluster.open-cluster-management.io/v1alpha1/namespaces/lab/addonplacementscores/"
    "resource-usage-score";

json node(const std::string& name, int gpus) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable",
             {{"cpu", "16"}, {"memory", "64Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

class ClusterRoleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(client_.post("/api/v1/nodes", node("gpu-0", 8).dump()).ok());
  }
  void TearDown() override { release(); }

  void hold(const std::string& path_contains, const std::string& methods) {
    ASSERT_TRUE(
        client_
            .post("/fixture/hold-writes?path_contains=" + path_contains + "&methods=" + methods, "")
            .ok());
  }
  void release() { client_.post("/fixture/release-writes", ""); }
  int held() { return json::parse(client_.get("/fixture/held-writes").body)["held"].get<int>(); }
  void await_held() {
    const auto give_up = std::chrono::steady_clock::now() + kAwaitGuard;
    while (held() == 0) ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "nothing held";
  }

  ClusterRoleOptions options() {
    ClusterRoleOptions role;
    role.kube = &client_;
    role.is_own = [](const json&) { return false; };
    return role;
  }

  // One turn of the loop: waits (at most 100 ms) on the role's fds, then lets
  // it act at loop time `now`; keeps every usage report the core would send.
  void turn(ClusterRole& role, TimeMs now) {
    std::vector<zmq_pollitem_t> items;
    role.add_poll_items(items);
    zmq::poll(items, 100ms);
    Outbox out;
    role.on_polled(items.data(), items.size(), now, core_, out);
    if (out.usage_changed) reports_.push_back(core_.usage_report());
  }
  // Turns until `done` (a guard fails the test after kAwaitGuard).
  void serve_until(ClusterRole& role, TimeMs now, const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + kAwaitGuard;
    while (!done()) {
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "still waiting";
      turn(role, now);
    }
  }
  bool core_has_nodes() const { return !core_.usage_report().nodes.empty(); }

  support::TempDir dir_{"cluster-role"};
  kube::testing::FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
  SimExecutor executor_;
  AgentCore core_{"lab", protocol::Labels{}, executor_};
  std::vector<protocol::UsageReport> reports_;
};

TEST_F(ClusterRoleTest, NothingIsServedBeforeTheViewHasListedNodesAndPods) {
  hold("/api/v1/pods", "GET");  // the pod list does not answer yet
  ClusterRoleOptions with_reports = options();
  with_reports.node_listen = "tcp://127.0.0.1:*";
  with_reports.ocm_namespace = "lab";
  ClusterRole role(with_reports);
  role.prepare(core_);
  EXPECT_EQ(core_.usage_report().not_ready_reason, kSyncingReason);

  // A node-role agent reports 2 GPUs of its own.
  zmq::context_t context;
  zmq::socket_t node_agent(context, zmq::socket_type::dealer);
  node_agent.connect(role.node_endpoint());
  protocol::NodeReport report;
  report.cluster = "lab";
  report.node = "gpu-0";
  report.cpu_milli = 4000;
  report.gpus.resize(2);
  node_agent.send(zmq::buffer(protocol::encode(report, 1)), zmq::send_flags::none);
  await_held();
  serve_until(role, kT0, [&] { return role.reporting_nodes() == 1; });
  turn(role, kT0 + 60'000);  // scores would be due

  EXPECT_FALSE(core_has_nodes());
  EXPECT_EQ(core_.usage_report().not_ready_reason, kSyncingReason);
  EXPECT_EQ(core_.usage_report().scores.valid_until_ms, 0) << "no scores before the sync";
  EXPECT_EQ(client_.get(kScore).status, 404) << "no AddOnPlacementScore before the sync";

  release();
  serve_until(role, kT0 + 60'000, [&] { return core_has_nodes(); });
  const protocol::UsageReport synced = core_.usage_report();
  EXPECT_EQ(synced.not_ready_reason, "");
  ASSERT_EQ(synced.nodes.size(), 1u);
  EXPECT_EQ(hub::ResourceVector::from_list(synced.nodes[0].allocatable).gpus(), 8)
      << "Kubernetes' allocatable, not the node report's GPUs";
  EXPECT_NE(synced.scores.valid_until_ms, 0) << "scores computed at the sync";
  // Every report the loop would have sent: node-less while syncing, then Kubernetes' nodes.
  ASSERT_FALSE(reports_.empty());
  for (const protocol::UsageReport& sent : reports_) {
    if (sent.not_ready_reason == kSyncingReason) {
      EXPECT_TRUE(sent.nodes.empty());
    } else {
      ASSERT_EQ(sent.nodes.size(), 1u);
      EXPECT_EQ(hub::ResourceVector::from_list(sent.nodes[0].allocatable).gpus(), 8);
    }
  }

  // The score object is written from the synced view, off the loop.
  serve_until(role, kT0 + 60'000, [&] { return client_.get(kScore).status == 200; });
  const json written = json::parse(client_.get(kScore).body)["status"]["scores"];
  for (const json& score : written) {
    if (score["name"] == "gpuClusterAvailable") {
      EXPECT_EQ(score["value"], synced.scores.gpu_cluster_available);
    }
  }
}

TEST_F(ClusterRoleTest, ARenewalThatDoesNotAnswerLeavesTheLoopServingAndIsLostAtTheDeadline) {
  LeaseOptions lease{.namespace_ = "gantry-system", .name = "lab", .identity = "agent-a"};
  LeaseElector elected(client_, lease);
  ASSERT_TRUE(elected.try_acquire_or_renew(LeaseNow::current()));  // as main() does first
  hold("/leases", "PUT");

  ClusterRoleOptions leading = options();
  leading.lease = lease;
  ClusterRole role(leading);
  role.prepare(core_);
  turn(role, kT0);  // the renewal starts, and hangs
  await_held();

  // The loop serves on: the view syncs, and a new Node reaches the core.
  serve_until(role, kT0, [&] { return core_has_nodes(); });
  ASSERT_TRUE(client_.post("/api/v1/nodes", node("gpu-1", 4).dump()).ok());
  serve_until(role, kT0 + 1'000, [&] { return core_.usage_report().nodes.size() == 2; });
  EXPECT_EQ(held(), 1) << "the renewal still waits on the server";
  EXPECT_LT(role.stop_status(), 0);

  turn(role, kT0 + leading.lease_renew_deadline_ms - 1);
  EXPECT_LT(role.stop_status(), 0);
  turn(role, kT0 + leading.lease_renew_deadline_ms);
  EXPECT_EQ(role.stop_status(), kLostLeadershipStatus);
  release();  // the worker's call ends before the role is destroyed
}

TEST_F(ClusterRoleTest, RenewalsKeepTheLeaseAndAnotherHolderEndsItAtOnce) {
  LeaseOptions lease{.namespace_ = "gantry-system", .name = "lab", .identity = "agent-a"};
  LeaseElector elected(client_, lease);
  ASSERT_TRUE(elected.try_acquire_or_renew(LeaseNow::current()));
  ClusterRoleOptions leading = options();
  leading.lease = lease;
  ClusterRole role(leading);
  const auto renewals = [&] {
    std::size_t puts = 0;
    for (const json& entry : json::parse(client_.get("/fixture/requests").body))
      if (entry["method"] == "PUT" && entry["status"] == 200) ++puts;
    return puts;
  };
  ASSERT_TRUE(client_.post("/fixture/requests/clear", "").ok());
  serve_until(role, kT0, [&] { return renewals() == 1 && !role.renewing(); });
  serve_until(role, kT0 + leading.lease_renew_ms,
              [&] { return renewals() == 2 && !role.renewing(); });
  // Past the first deadline, within the one the second renewal gave.
  const TimeMs third = kT0 + leading.lease_renew_deadline_ms + 1;
  serve_until(role, third, [&] { return renewals() == 3 && !role.renewing(); });
  EXPECT_LT(role.stop_status(), 0);

  // Someone else writes itself in as the holder: the next renewal reads it
  // and the term ends then, well before the renew deadline.
  json taken = json::parse(client_.get(kLeases + "/lab").body);
  taken["spec"]["holderIdentity"] = "agent-b";
  ASSERT_TRUE(client_.put(kLeases + "/lab", taken.dump()).ok());
  const TimeMs fourth = third + leading.lease_renew_ms;
  ASSERT_LT(fourth, third + leading.lease_renew_deadline_ms);
  serve_until(role, fourth, [&] { return role.stop_status() >= 0; });
  EXPECT_EQ(role.stop_status(), kLostLeadershipStatus);
}

}  // namespace
}  // namespace gantry::agents
