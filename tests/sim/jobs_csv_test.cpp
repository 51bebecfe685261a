// gantry-sim --jobs-csv: one line per job that ran, with the times the replay
// decided (the hand-made trace's pooled FIFO starts, replay_start_times_test).
#include "sim/jobs_csv.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

using namespace testing;  // the hand-made trace

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> csv_lines(const ReplayResult& result) {
  std::ostringstream out;
  write_jobs_csv(out, hand_clusters(), hand_traces(), result);
  return lines_of(out.str());
}

TEST(JobsCsv, OneLinePerJobWithItsSubmitStartWaitAndCluster) {
  const ReplayResult result =
      replay(hand_clusters(), hand_traces(), ReplayConfig{Mode::kPooled, Policy::kFifo});
  const std::vector<std::string> lines = csv_lines(result);
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[0],
            "trace,job_id,gpus,submit_s,start_s,wait_s,duration_s,limit_s,cluster,parts,"
            "evictions,lost_s");
  // a3 (16 GPUs, submitted at 10) needs all of ca: it starts when b2 ends, at 90.
  EXPECT_EQ(lines[3], "ca,a3,16,10,90,80,100,0,ca,1,0,0");
  // b2 (8 GPUs, submitted at 5) waits for a2's node on ca: 50.
  EXPECT_EQ(lines[6], "cb,b2,8,5,50,45,40,0,ca,1,0,0");
}

TEST(JobsCsv, AJobThatNeverRanHasNoLine) {
  ReplayResult result =
      replay(hand_clusters(), hand_traces(), ReplayConfig{Mode::kPooled, Policy::kFifo});
  result.jobs[2].ran = false;  // as if a3 could fit no cluster it may use
  const std::vector<std::string> lines = csv_lines(result);
  ASSERT_EQ(lines.size(), 8u);
  for (const std::string& line : lines) EXPECT_EQ(line.rfind("ca,a3,", 0), std::string::npos);
}

}  // namespace
}  // namespace gantry::sim
