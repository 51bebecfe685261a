// /proc parsing: a hand-written fake /proc in a temp dir, errors naming the
// file and line, and this machine's real /proc.
#include "agents/proc_stats.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

const char* const kStat =
    "cpu  4705 356 584 3699 23 23 0 0 0 0\n"
    "cpu0 1393 280 290 3605 7 16 0 0 0 0\n"
    "cpu1 1098 26 105 31 5 3 0 0 0 0\n"
    "cpu2 1100 25 95 31 5 2 0 0 0 0\n"
    "cpu5 1114 25 94 32 6 2 0 0 0 0\n"  // cpu3 and cpu4 are offline
    "intr 114930548 113199788 3 0 5 263 0 4 [...]\n"
    "ctxt 1990473\n"
    "procs_running 2\n";
const char* const kMeminfo =
    "MemTotal:       16318412 kB\n"
    "MemFree:         9870008 kB\n"
    "MemAvailable:   12101328 kB\n"
    "Buffers:          331904 kB\n"
    "HugePages_Total:       0\n";
const char* const kLoadavg = "0.52 0.58 0.59 1/1234 5678\n";

class ProcStatsTest : public ::testing::Test {
 protected:
  ProcStatsTest() {
    proc_.write("stat", kStat);
    proc_.write("meminfo", kMeminfo);
    proc_.write("loadavg", kLoadavg);
  }

  // The message read_host_stats throws, or "" when it does not.
  std::string error_of_reading() {
    try {
      read_host_stats(proc_.path());
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  support::TempDir proc_{"gantry-fake-proc"};
};

TEST_F(ProcStatsTest, ReadsOnlineCpusMemoryAndLoad) {
  const HostStats stats = read_host_stats(proc_.path());
  EXPECT_EQ(stats.cpu_milli, 4000);  // four cpuN lines; the aggregate "cpu" line is not a CPU
  EXPECT_EQ(stats.memory_bytes, 16318412LL * 1024);
  EXPECT_EQ(stats.memory_available_bytes, 12101328LL * 1024);
  EXPECT_DOUBLE_EQ(stats.load1, 0.52);
}

TEST_F(ProcStatsTest, MissingFileIsNamed) {
  std::filesystem::remove(proc_.path() / "loadavg");
  const std::string error = error_of_reading();
  EXPECT_NE(error.find("cannot read " + (proc_.path() / "loadavg").string()), std::string::npos)
      << error;
}

TEST_F(ProcStatsTest, StatWithoutCpuLinesIsAnError) {
  proc_.write("stat", "cpu  4705 356 584 3699 23 23 0 0 0 0\nctxt 1990473\n");
  EXPECT_EQ(error_of_reading(), (proc_.path() / "stat").string() + ": no cpuN line");
}

TEST_F(ProcStatsTest, BadMeminfoValueNamesFileAndLine) {
  proc_.write("meminfo", "MemFree:  9870008 kB\nMemTotal:       lots kB\nMemAvailable: 1 kB\n");
  EXPECT_EQ(error_of_reading(), (proc_.path() / "meminfo").string() +
                                    " line 2: MemTotal is not a number of kB (got \"MemTotal:  "
                                    "     lots kB\")");
}

TEST_F(ProcStatsTest, MeminfoInAnotherUnitIsAnError) {
  proc_.write("meminfo", "MemTotal:       16318412 kB\nMemAvailable:   12101328 MB\n");
  const std::string error = error_of_reading();
  EXPECT_NE(error.find("meminfo line 2: MemAvailable is not a number of kB"), std::string::npos)
      << error;
}

TEST_F(ProcStatsTest, MissingMemAvailableIsAnError) {
  proc_.write("meminfo", "MemTotal:       16318412 kB\nMemFree:         9870008 kB\n");
  EXPECT_EQ(error_of_reading(), (proc_.path() / "meminfo").string() + ": no MemAvailable line");
}

TEST_F(ProcStatsTest, BadLoadavgNamesFileAndLine) {
  proc_.write("loadavg", "high 0.58 0.59 1/1234 5678\n");
  EXPECT_EQ(error_of_reading(), (proc_.path() / "loadavg").string() +
                                    " line 1: the 1-minute load is not a number (got \"high 0.58 "
                                    "0.59 1/1234 5678\")");
}

TEST_F(ProcStatsTest, EmptyLoadavgIsAnError) {
  proc_.write("loadavg", "");
  EXPECT_EQ(error_of_reading(), (proc_.path() / "loadavg").string() + ": empty");
}

TEST(RealProcTest, MatchesThisMachine) {
  const HostStats stats = read_host_stats();
  EXPECT_EQ(stats.cpu_milli, ::sysconf(_SC_NPROCESSORS_ONLN) * 1000);
  EXPECT_GT(stats.memory_bytes, 0);
  EXPECT_GT(stats.memory_available_bytes, 0);
  EXPECT_LE(stats.memory_available_bytes, stats.memory_bytes);
  EXPECT_GE(stats.load1, 0.0);
}

}  // namespace
}  // namespace gantry::agents
