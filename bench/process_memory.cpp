#include "bench/process_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace gantry::bench {

std::int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size_pages = 0;
  std::int64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

namespace {
double seconds_of(const timeval& time) {
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}
}  // namespace

ProcessTimes process_times() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return {};
  return ProcessTimes{seconds_of(usage.ru_utime), seconds_of(usage.ru_stime), usage.ru_minflt};
}

ProcessTimes operator-(const ProcessTimes& later, const ProcessTimes& earlier) {
  return ProcessTimes{later.user_seconds - earlier.user_seconds,
                      later.system_seconds - earlier.system_seconds,
                      later.minor_faults - earlier.minor_faults};
}

}  // namespace gantry::bench
