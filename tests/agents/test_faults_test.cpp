// --test-fault SPEC: what each spec turns on, refusals, and the filter the
// loop applies. Their effect on a live agent: agent_socket_test.cpp and
// agent_process_test.cpp.
#include "agents/test_faults.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gantry::agents {
namespace {

TestFaults faults_of(std::initializer_list<const char*> specs) {
  TestFaults faults;
  for (const char* spec : specs) add_test_fault(spec, faults);
  return faults;
}

TEST(TestFaults, EachSpecTurnsOnItsFault) {
  const TestFaults none;
  EXPECT_EQ(none.drop_prepares, 0);
  EXPECT_FALSE(none.reject_prepares);
  EXPECT_FALSE(none.exit_after_admit);
  const TestFaults all = faults_of({"drop-prepares=2", "reject-prepares", "exit-after-admit"});
  EXPECT_EQ(all.drop_prepares, 2);
  EXPECT_TRUE(all.reject_prepares);
  EXPECT_TRUE(all.exit_after_admit);
}

TEST(TestFaults, UnknownOrMalformedSpecsAreRefused) {
  for (const char* bad :
       {"drop-prepares=0", "drop-prepares=x", "drop-prepares=", "drop-prepares", "crash", ""}) {
    TestFaults faults;
    EXPECT_THROW(add_test_fault(bad, faults), std::invalid_argument) << bad;
  }
}

TEST(FaultFilter, DropsTheFirstNPreparesThenRejectsOrHandles) {
  FaultFilter drop_then_handle(faults_of({"drop-prepares=2"}));
  EXPECT_EQ(drop_then_handle.on_prepare(), FaultFilter::Verdict::kDrop);
  EXPECT_EQ(drop_then_handle.on_prepare(), FaultFilter::Verdict::kDrop);
  EXPECT_EQ(drop_then_handle.on_prepare(), FaultFilter::Verdict::kHandle);

  FaultFilter drop_then_reject(faults_of({"drop-prepares=1", "reject-prepares"}));
  EXPECT_EQ(drop_then_reject.on_prepare(), FaultFilter::Verdict::kDrop);
  EXPECT_EQ(drop_then_reject.on_prepare(), FaultFilter::Verdict::kReject);
  EXPECT_EQ(drop_then_reject.on_prepare(), FaultFilter::Verdict::kReject);

  FaultFilter off{TestFaults{}};
  EXPECT_EQ(off.on_prepare(), FaultFilter::Verdict::kHandle);
}

TEST(FaultFilter, StopsOnlyAfterAnAdmitAndOnlyWhenAskedTo) {
  const OutboundMessage admit = protocol::Admit{1, "j", 0, "", 0};
  const OutboundMessage reject = protocol::Reject{1, "j", "no", 0};
  const FaultFilter exits(faults_of({"exit-after-admit"}));
  EXPECT_TRUE(exits.stop_after_sending(admit));
  EXPECT_FALSE(exits.stop_after_sending(reject));
  EXPECT_FALSE(FaultFilter(TestFaults{}).stop_after_sending(admit));
}

}  // namespace
}  // namespace gantry::agents
