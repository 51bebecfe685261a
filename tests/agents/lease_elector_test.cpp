// Lease election against the fixture API server, with explicit times: who
// leads, what the Lease says, take-over once the record stayed unchanged for
// the lease duration on the candidate's own monotonic clock (whatever the
// renewTime says), hand-over on release, and losing on a 409.
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

// The candidates' monotonic clock starts anywhere: here, at an arbitrary point.
const std::chrono::steady_clock::time_point kSteady0 = std::chrono::steady_clock::time_point() + 1h;

// Both clocks `elapsed` after the start of a test (no skew between them).
LeaseNow at(std::chrono::microseconds elapsed) {
  return LeaseNow{kSteady0 + elapsed, kT0 + elapsed};
}

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
  // Another candidate, "other", holds the Lease and says it renewed at
  // `renew_time` (its own wall clock); creates the Lease when absent.
  void other_holds(const std::string& renew_time) {
    const kube::Response got = client_.get(kLeasePath);
    json lease = got.status == 404 ? json{{"apiVersion", "coordination.k8s.io/v1"},
                                          {"kind", "Lease"},
                                          {"metadata", {{"name", "gantry-cluster"}}}}
                                   : json::parse(got.body);
    lease["spec"] = {
        {"holderIdentity", "other"}, {"leaseDurationSeconds", 15}, {"renewTime", renew_time}};
    const kube::Response written = got.status == 404 ? client_.post(kLeases, lease.dump())
                                                     : client_.put(kLeasePath, lease.dump());
    ASSERT_TRUE(written.ok()) << written.body;
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
  EXPECT_TRUE(a_.try_acquire_or_renew(at(0us)));
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
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_TRUE(a_.try_acquire_or_renew(at(5s + 250ms)));

  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["acquireTime"], "2024-05-01T08:00:00.000000Z");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:05.250000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(LeaseElection, OthersAreNotLeaderWhileTheHolderRenews) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_FALSE(b_.try_acquire_or_renew(at(1s)));
  ASSERT_TRUE(a_.try_acquire_or_renew(at(10s)));
  // 20 s after the first renewal, but only 10 s after the last one.
  EXPECT_FALSE(b_.try_acquire_or_renew(at(20s)));
  EXPECT_FALSE(b_.is_leader());
  EXPECT_EQ(lease_spec()["holderIdentity"], "agent-a");
}

TEST_F(LeaseElection, AnotherTakesOverOnceTheRecordStayedUnchangedForTheLeaseDuration) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_FALSE(b_.try_acquire_or_renew(at(1s)));  // b sees a's record first here
  EXPECT_FALSE(b_.try_acquire_or_renew(at(16s - 1us)));
  EXPECT_TRUE(b_.try_acquire_or_renew(at(16s)));

  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-b");
  EXPECT_EQ(spec["acquireTime"], "2024-05-01T08:00:16.000000Z");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:16.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  // The old holder comes back: it sees b's hold, new to it, and steps down.
  EXPECT_FALSE(a_.try_acquire_or_renew(at(17s)));
  EXPECT_FALSE(a_.is_leader());
}

TEST_F(LeaseElection, ARenewTimeLongPastButJustObservedIsNotTaken) {
  other_holds("2024-05-01T07:00:00.000000Z");  // an hour before this candidate's wall clock
  EXPECT_FALSE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_EQ(a_.observed_holder(), "other");
  EXPECT_EQ(lease_spec()["holderIdentity"], "other");
}

TEST_F(LeaseElection, TakenOnceTheLeaseDurationPassedWithoutAChange) {
  other_holds("2024-05-01T07:00:00.000000Z");
  ASSERT_FALSE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_FALSE(a_.try_acquire_or_renew(at(15s - 1us)));
  EXPECT_TRUE(a_.try_acquire_or_renew(at(15s)));
  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["renewTime"], "2024-05-01T08:00:15.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 1);
}

TEST_F(LeaseElection, AChangeOfTheRecordStartsTheWaitAgain) {
  other_holds("2024-05-01T07:00:00.000000Z");
  ASSERT_FALSE(a_.try_acquire_or_renew(at(0us)));
  other_holds("2024-05-01T07:00:10.000000Z");      // the holder renews
  EXPECT_FALSE(a_.try_acquire_or_renew(at(10s)));  // seen changed: the wait starts here
  EXPECT_FALSE(a_.try_acquire_or_renew(at(25s - 1us)));
  EXPECT_TRUE(a_.try_acquire_or_renew(at(25s)));
}

TEST_F(LeaseElection, HoursOfClockSkewOnRenewTimeDoNotMatter) {
  // The holder's clock runs three hours ahead: its renewTime lies in this
  // candidate's future, yet a holder that stopped renewing is replaced after
  // the lease duration.
  other_holds("2024-05-01T11:00:00.000000Z");
  ASSERT_FALSE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_TRUE(a_.try_acquire_or_renew(at(15s)));

  // A holder three hours behind that keeps renewing keeps the Lease.
  LeaseElector c(client_, options_for("agent-c"));
  other_holds("2024-05-01T05:00:20.000000Z");
  ASSERT_FALSE(c.try_acquire_or_renew(at(20s)));
  for (const auto elapsed : {30s, 40s, 50s}) {
    other_holds(format_micro_time(kT0 - 3h + elapsed));
    EXPECT_FALSE(c.try_acquire_or_renew(at(elapsed)));
  }
  EXPECT_EQ(lease_spec()["holderIdentity"], "other");
}

TEST_F(LeaseElection, ReleaseLetsAnotherTakeItAtOnce) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  a_.release();
  EXPECT_FALSE(a_.is_leader());
  EXPECT_EQ(lease_spec()["holderIdentity"], "");

  EXPECT_TRUE(b_.try_acquire_or_renew(at(1s)));  // well within a's 15 s
  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
}

TEST_F(LeaseElection, ReleaseLeavesALeaseTakenMeanwhileAlone) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  ASSERT_FALSE(b_.try_acquire_or_renew(at(1s)));
  ASSERT_TRUE(b_.try_acquire_or_renew(at(30s)));  // a stopped renewing
  a_.release();                                   // a still believes it leads
  EXPECT_EQ(lease_spec()["holderIdentity"], "agent-b");
}

TEST_F(LeaseElection, AConflictOnRenewalMeansNotLeader) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  conflict_next_write();
  EXPECT_FALSE(a_.try_acquire_or_renew(at(5s)));
  EXPECT_FALSE(a_.is_leader());
  EXPECT_EQ(lease_spec()["renewTime"], "2024-05-01T08:00:00.000000Z");  // not applied
  EXPECT_TRUE(a_.try_acquire_or_renew(at(6s)));                         // still its Lease
}

TEST_F(LeaseElection, AConflictOnTakeOverLeavesTheOldHolder) {
  ASSERT_TRUE(a_.try_acquire_or_renew(at(0us)));
  ASSERT_FALSE(b_.try_acquire_or_renew(at(1s)));
  conflict_next_write();
  EXPECT_FALSE(b_.try_acquire_or_renew(at(30s)));  // due, but the write conflicts
  const json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "agent-a");
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(LeaseElection, ARenewTimeThatIsNoTimeIsOnlyAMarkOfChange) {
  other_holds("yesterday");
  EXPECT_FALSE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_EQ(lease_spec()["holderIdentity"], "other");
  EXPECT_TRUE(a_.try_acquire_or_renew(at(15s)));
}

TEST_F(LeaseElection, AMalformedLeaseIsNotLeaderAndDoesNotThrow) {
  const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", "gantry-cluster"}}},
                      {"spec", {{"holderIdentity", "other"}, {"leaseDurationSeconds", "long"}}}};
  ASSERT_EQ(client_.post(kLeases, lease.dump()).status, 201);
  EXPECT_FALSE(a_.try_acquire_or_renew(at(0us)));
  EXPECT_FALSE(a_.try_acquire_or_renew(at(1h)));
  EXPECT_EQ(lease_spec()["holderIdentity"], "other");
}

TEST(LeaseElectorUnreachable, AServerThatIsDownMeansNotLeader) {
  const std::uint16_t port = support::free_loopback_port();  // nobody listens there
  kube::Client client(kube::ClusterAccess{.server = "http://127.0.0.1:" + std::to_string(port)});
  LeaseElector elector(client, options_for("agent-a"));
  EXPECT_FALSE(elector.try_acquire_or_renew(at(0us)));
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
