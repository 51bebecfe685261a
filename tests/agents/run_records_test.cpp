// The process executor's state directory: records, run ends and the contact
// file survive as whole files; what cannot be read is skipped, not guessed.
#include "agents/run_records.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

RunRecord sample_record() {
  return RunRecord{ReplicaKey{42, 3}, "ddp", "worker", "node-b", 1, 2, 5, 4321, 98765, 4};
}

TEST(RunRecords, ARecordReadsBackAsWrittenAndIsForgottenWithItsEnd) {
  support::TempDir temp{"gantry-run-records"};
  const RunStateDir state(temp.path() / "state");
  const RunRecord written = sample_record();
  state.write_record(written);
  write_run_end(state.exit_path(written.key), RunEnd{143, 15, true});

  const std::vector<RunRecord> read = state.records();
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].key, written.key);
  EXPECT_EQ(read[0].job, "ddp");
  EXPECT_EQ(read[0].task, "worker");
  EXPECT_EQ(read[0].node, "node-b");
  EXPECT_EQ(read[0].part, 1);
  EXPECT_EQ(read[0].parts, 2);
  EXPECT_EQ(read[0].task_index, 5);
  EXPECT_EQ(read[0].supervisor, 4321);
  EXPECT_EQ(read[0].supervisor_start, 98765u);
  EXPECT_EQ(read[0].part_replicas, 4);
  const std::optional<RunEnd> end = read_run_end(state.exit_path(written.key));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->exit_code, 143);
  EXPECT_EQ(end->signal, 15);
  EXPECT_TRUE(end->fenced);

  state.remove(written.key);
  EXPECT_TRUE(state.records().empty());
  EXPECT_FALSE(read_run_end(state.exit_path(written.key)).has_value());
}

TEST(RunRecords, ATornRecordIsSkippedAndAMissingEndIsNone) {
  support::TempDir temp{"gantry-run-records"};
  const RunStateDir state(temp.path());
  state.write_record(sample_record());
  std::ofstream(state.record_path(ReplicaKey{7, 0})) << "{\"dispatch\": 7, \"ra";
  std::ofstream(state.exit_path(ReplicaKey{7, 0})) << "{\"exit_code\":";

  const std::vector<RunRecord> read = state.records();
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].key, (ReplicaKey{42, 3}));
  EXPECT_FALSE(read_run_end(state.exit_path(ReplicaKey{7, 0})).has_value());
  EXPECT_FALSE(read_run_end(state.exit_path(ReplicaKey{8, 0})).has_value());
}

// An agent before part_replicas was recorded wrote none: not known, 0.
TEST(RunRecords, ARecordWithoutItsPartsReplicaCountReadsAsUnknown) {
  support::TempDir temp{"gantry-run-records"};
  const RunStateDir state(temp.path());
  std::ofstream(state.record_path(ReplicaKey{7, 0}))
      << R"({"dispatch":7,"rank":0,"job":"j","task":"w","node":"n","part":0,"parts":1,)"
      << R"("task_index":0,"supervisor":12,"supervisor_start":34})"
      << "\n";
  const std::vector<RunRecord> read = state.records();
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].supervisor_start, 34u);
  EXPECT_EQ(read[0].part_replicas, 0);
}

TEST(RunRecords, TheContactIsTheLastConfirmedTime) {
  support::TempDir temp{"gantry-run-records"};
  const RunStateDir state(temp.path());
  EXPECT_FALSE(read_contact(state.contact_path()).has_value());
  state.write_contact(1000);
  state.write_contact(2500);
  EXPECT_EQ(read_contact(state.contact_path()), 2500);
}

TEST(RunRecords, AProcessStartTimeIsKnownWhileItLivesAndZeroOnceReaped) {
  EXPECT_GT(process_start_time(::getpid()), 0u);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(process_start_time(child), 0u);
}

}  // namespace
}  // namespace gantry::agents
