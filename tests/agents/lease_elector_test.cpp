// Lease election against the fixture API server, with explicit times: who
// leads, what the Lease says, take-over after expiry, hand-over on release,
// and losing on a 409.
#include "agents/lease_elector.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "hub/field_error.hpp"
#include "support/free_port.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"

namespace gantry::agents {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::system_clock;

const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/gantry-system/leases";
const std::string kLeasePath = kLeases + "/gantry-cluster";
// 2024-05-01T08:00:00Z
const Clock::time_point kT0 =
    std::chrono::sys_days{std::chrono::year{2024} / 5 / 1} + std::chrono::hours{8};

LeaseOptions options_for(const std::string& identity) {
  return LeaseOptions{.namespace_ = "gantry-system",
                      .name = "gantry-cluster",
                      .identity = identity,
                      .lease_duration_s = 15};
}

class LeaseElection : public ::testing::Test {
 protected:
  json lease_spec() {
    const kube::Response got = client_.get(kLeasePath);
    EXPECT_EQ(got.status, 200) << got.body;
    return json::parse(got.body)["spec"];
  }
  void conflict_next_write() {
    ASSERT_EQ(
        client_.post("/fixture/conflict-next-patches?count=1&path_contains=leases", "").status,
        200);
  }

  support::TempDir dir_{"lease-elector"};
  kube::testing::FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  kube::Client client_{kube::ClusterAccess{.server = fixture_.url()}};
  LeaseElector a_{client_, options_for("agent-a")};
  LeaseElector b_{client_, options_for("agent-b")};
};

TEST_F(LeaseElection, FirstCandidateCreatesTheLeaseHeldByItself) {
  EXPECT_TRUE(a_.try_acquire_or_renew(kT0));
  EXPECT_TRUE(a_.is_leader());

  const kube::Response got = client_.get(kLeasePath);
  ASSERT_EQ(got.status, 200) << got.body;
  const json lease = json::parse(got.body);
  EXPECT_EQ(lease["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(lease["kind"], "Lease");
  const json& spec = lease["spec"];
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["acquireTime"], "2024-05-01T08:00:00.000000Z");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:00.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(LeaseElection, RenewalMovesOnlyTheRenewTime) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  EXPECT_TRUE(a_.try_acquire_or_renew(kT0 + 5s + 250ms));

  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["acquireTime"], "2024-05-01T08:00:00.000000Z");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:05.250000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(LeaseElection, OthersAreNotLeaderWhileTheHolderRenews) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  EXPECT_FALSE(b_.try_acquire_or_renew(kT0 + 1s));
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0 + 10s));
  // 20 s after the first renewal, but only 10 s after the last one.
  EXPECT_FALSE(b_.try_acquire_or_renew(kT0 + 20s));
  EXPECT_FALSE(b_.is_leader());
  EXPECT_EQ(lease_spec()["holderIdentity"], "agent-a");
}

TEST_F(LeaseElection, AnotherTakesOverOnceTheLeaseDurationHasPassed) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  EXPECT_FALSE(b_.try_acquire_or_renew(kT0 + 15s - 1us));
  EXPECT_TRUE(b_.try_acquire_or_renew(kT0 + 15s));

  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-b");
  EXPECT_EQ(spec["acquireTime"], "2024-05-01T08:00:15.000000Z");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:15.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  // The old holder comes back: it sees b's valid hold and steps down.
  EXPECT_FALSE(a_.try_acquire_or_renew(kT0 + 16s));
  EXPECT_FALSE(a_.is_leader());
}

TEST_F(LeaseElection, ReleaseLetsAnotherTakeItAtOnce) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  a_.release();
  EXPECT_FALSE(a_.is_leader());
  EXPECT_EQ(lease_spec()["holderIdentity"], "");

  EXPECT_TRUE(b_.try_acquire_or_renew(kT0 + 1s));  // well within a's 15 s
  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
}

TEST_F(LeaseElection, ReleaseLeavesALeaseTakenMeanwhileAlone) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  ASSERT_TRUE(b_.try_acquire_or_renew(kT0 + 30s));  // a stopped renewing
  a_.release();                                     // a still believes it leads
  EXPECT_EQ(lease_spec()["holderIdentity"], "agent-b");
}

TEST_F(LeaseElection, AConflictOnRenewalMeansNotLeader) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  conflict_next_write();
  EXPECT_FALSE(a_.try_acquire_or_renew(kT0 + 5s));
  EXPECT_FALSE(a_.is_leader());
  EXPECT_EQ(lease_spec()["renewTime"], "2024-05-01T08:00:00.000000Z");  // not applied
  EXPECT_TRUE(a_.try_acquire_or_renew(kT0 + 6s));                       // still its Lease
}

TEST_F(LeaseElection, AConflictOnTakeOverLeavesTheOldHolder) {
  ASSERT_TRUE(a_.try_acquire_or_renew(kT0));
  conflict_next_write();
  EXPECT_FALSE(b_.try_acquire_or_renew(kT0 + 30s));
  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(LeaseElection, AMalformedRenewTimeIsNotLeaderAndDoesNotThrow) {
  const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", "gantry-cluster"}}},
                      {"spec", {{"holderIdentity", "other"}, {"renewTime", "yesterday"}}}};
  ASSERT_EQ(client_.post(kLeases, lease.dump()).status, 201);
  EXPECT_FALSE(a_.try_acquire_or_renew(kT0));
  EXPECT_EQ(lease_spec()["holderIdentity"], "other");
}

TEST(LeaseElectorUnreachable, AServerThatIsDownMeansNotLeader) {
  const std::uint16_t port = support::free_loopback_port();  // nobody listens there
  kube::Client client(kube::ClusterAccess{.server = "http://127.0.0.1:" + std::to_string(port)});
  LeaseElector elector(client, options_for("agent-a"));
  EXPECT_FALSE(elector.try_acquire_or_renew(kT0));
}

TEST(LeaseElectorOptions, EmptyIdentityOrNonPositiveDurationIsRefused) {
  kube::Client client(kube::ClusterAccess{.server = "http://127.0.0.1:1"});
  LeaseOptions no_identity = options_for("");
  EXPECT_THROW(LeaseElector(client, no_identity), hub::FieldError);
  LeaseOptions zero = options_for("a");
  zero.lease_duration_s = 0;
  EXPECT_THROW(LeaseElector(client, zero), hub::FieldError);
}

TEST(MicroTime, FormatsMicrosecondsInUtc) {
  EXPECT_EQ(format_micro_time(kT0 + 123456us), "2024-05-01T08:00:00.123456Z");
  EXPECT_EQ(format_micro_time(kT0 + 1ms + 999ns), "2024-05-01T08:00:00.001000Z");
}

TEST(MicroTime, ParsesWhatKubernetesWrites) {
  EXPECT_EQ(parse_micro_time("2024-05-01T08:00:00.123456Z", "f"), kT0 + 123456us);
  EXPECT_EQ(parse_micro_time("2024-05-01T08:00:00Z", "f"), kT0);
  EXPECT_EQ(parse_micro_time("2024-05-01T10:00:00.5+02:00", "f"), kT0 + 500ms);
  EXPECT_EQ(parse_micro_time(format_micro_time(kT0 + 42us), "f"), kT0 + 42us);
}

TEST(MicroTime, RefusesOtherTextNamingTheField) {
  for (const char* bad : {"", "yesterday", "2024-05-01 08:00:00Z", "2024-05-01T08:00:00",
                          "2024-05-01T08:00:00.Z", "2024-05-01T08:00:00Zjunk"}) {
    try {
      parse_micro_time(bad, "spec.renewTime");
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const hub::FieldError& error) {
      EXPECT_EQ(error.field(), "spec.renewTime");
      EXPECT_EQ(error.value(), bad);
    }
  }
}

}  // namespace
}  // namespace gantry::agents
