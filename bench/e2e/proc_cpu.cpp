#include "bench/e2e/proc_cpu.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::bench::e2e {

namespace {

struct ThreadCpu {
  std::string name;
  double seconds = 0;
};

// /proc/PID/task/TID/stat: "tid (comm) state ... utime stime ..." where comm
// may hold spaces, so fields are counted from the closing parenthesis.
bool read_thread(const std::filesystem::path& stat, ThreadCpu& out) {
  std::ifstream in(stat);
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.name = line.substr(open + 1, close - open - 1);
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  double ticks = 0;
  // After comm: state(1) ... utime is field 12, stime field 13 (1-based).
  for (int i = 1; i <= 13 && fields >> field; ++i) {
    if (i == 12 || i == 13) ticks += std::stod(field);
  }
  out.seconds = ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return true;
}

}  // namespace

std::map<std::string, double> thread_cpu_seconds(pid_t pid) {
  std::map<std::string, double> totals;
  std::error_code error;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks, error)) {
    ThreadCpu thread;
    if (read_thread(entry.path() / "stat", thread)) totals[thread.name] += thread.seconds;
  }
  return totals;
}

std::map<std::string, double> cpu_delta(const std::map<std::string, double>& a,
                                        const std::map<std::string, double>& b) {
  std::map<std::string, double> out = a;
  for (const auto& [name, seconds] : b) out[name] -= seconds;
  return out;
}

}  // namespace gantry::bench::e2e
