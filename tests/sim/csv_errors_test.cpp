// Bad trace and node-list files: the error names the file, the line and the
// column, and says what was wrong with which value.
#include <gtest/gtest.h>

#include "sim/csv_reader.hpp"
#include "sim/itp_trace.hpp"
#include "sim/openb_nodes.hpp"
#include "support/temp_dir.hpp"

namespace gantry::sim {
namespace {

using support::TempDir;

constexpr const char* kTraceHeader = "job_id,submission_time,duration,num_gpu\n";

CsvError trace_error(const std::filesystem::path& file) {
  try {
    load_itp_trace(file);
  } catch (const CsvError& error) {
    return error;
  }
  ADD_FAILURE() << "no error for " << file;
  return CsvError("", 0, 0, "");
}

TEST(CsvErrors, BadIntegerNamesFileLineColumnAndValue) {
  TempDir dir;
  const auto file =
      dir.write("cluster01.csv", std::string(kTraceHeader) + "j1,0,10,1\nj2,5,ten,2\n");
  const CsvError error = trace_error(file);
  EXPECT_EQ(error.file(), file.string());
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.column(), 3u);
  EXPECT_EQ(std::string(error.what()),
            file.string() + ":3:3: duration: expected an integer (got \"ten\")");
}

TEST(CsvErrors, OutOfRangeValueIsNamed) {
  TempDir dir;
  const auto file = dir.write("cluster02.csv", std::string(kTraceHeader) + "j1,0,10,0\n");
  const CsvError error = trace_error(file);
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.column(), 4u);
  EXPECT_NE(std::string(error.what()).find("num_gpu: must be between 1 and"), std::string::npos);
}

TEST(CsvErrors, NegativeSubmissionTimeIsRejected) {
  TempDir dir;
  const auto file = dir.write("cluster03.csv", std::string(kTraceHeader) + "j1,-5,10,1\n");
  const CsvError error = trace_error(file);
  EXPECT_EQ(error.column(), 2u);
  EXPECT_NE(std::string(error.what()).find("submission_time"), std::string::npos);
}

TEST(CsvErrors, WrongFieldCountNamesTheLine) {
  TempDir dir;
  const auto file =
      dir.write("cluster04.csv", std::string(kTraceHeader) + "j1,0,10,1\n\nj2,5,10\n");
  const CsvError error = trace_error(file);
  EXPECT_EQ(error.line(), 4u);  // the blank line 3 is skipped but counted
  EXPECT_NE(std::string(error.what()).find("expected 4 fields"), std::string::npos);
}

TEST(CsvErrors, WrongHeaderIsShown) {
  TempDir dir;
  const auto file = dir.write("cluster05.csv", "id,submit,duration,gpus\nj1,0,10,1\n");
  const CsvError error = trace_error(file);
  EXPECT_EQ(error.line(), 1u);
  EXPECT_NE(std::string(error.what()).find("(got \"id,submit,duration,gpus\")"), std::string::npos);
}

TEST(CsvErrors, MissingFileIsNamed) {
  TempDir dir;
  const CsvError error = trace_error(dir.path() / "cluster99.csv");
  EXPECT_NE(std::string(error.what()).find("cluster99.csv: cannot open file"), std::string::npos);
}

TEST(CsvErrors, OpenbBadGpuCount) {
  TempDir dir;
  const auto file = dir.write("nodes.csv",
                              "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M32\n"
                              "n1,64000,262144,-1,T4\n");
  try {
    load_openb_nodes(file);
    FAIL() << "no error";
  } catch (const CsvError& error) {
    EXPECT_EQ(error.line(), 3u);
    EXPECT_EQ(error.column(), 4u);
    EXPECT_NE(std::string(error.what()).find("gpu: must be between 0 and"), std::string::npos);
  }
}

TEST(TraceLoading, ReadsJobsInSubmissionOrderWithoutTrailingNewlineOrCarriageReturns) {
  TempDir dir;
  const auto file = dir.write("cluster07.csv",
                              "job_id,submission_time,duration,num_gpu\r\n"
                              "late,20,5,8\r\nearly,10,7,1\r\nsame,20,3,2");
  const Trace trace = load_itp_trace(file);
  EXPECT_EQ(trace.cluster_name, "cluster07");
  ASSERT_EQ(trace.jobs.size(), 3u);
  EXPECT_EQ(trace.jobs[0].id, "early");
  EXPECT_EQ(trace.jobs[1].id, "late");  // equal times keep file order
  EXPECT_EQ(trace.jobs[2].id, "same");
  EXPECT_EQ(trace.jobs[2].submit_s, 20);
  EXPECT_EQ(trace.jobs[2].duration_s, 3);
  EXPECT_EQ(trace.jobs[2].gpus, 2);
}

TEST(TraceLoading, FindsClusterFilesInOrder) {
  TempDir dir;
  dir.write("cluster10.csv", kTraceHeader);
  dir.write("cluster02.csv", kTraceHeader);
  dir.write("notes.txt", "");
  dir.write("clusterab.csv", kTraceHeader);
  dir.write("cluster.csv", kTraceHeader);
  EXPECT_EQ(find_itp_cluster_numbers(dir.path()), (std::vector<int>{2, 10}));
  EXPECT_EQ(itp_trace_path(dir.path(), 2), dir.path() / "cluster02.csv");
}

}  // namespace
}  // namespace gantry::sim
