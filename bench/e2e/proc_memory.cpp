#include "bench/e2e/proc_memory.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace gantry::bench::e2e {

std::int64_t resident_bytes_of(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::int64_t size_pages = 0;
  std::int64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace gantry::bench::e2e
