#include "bench/process_memory.hpp"

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

}  // namespace gantry::bench
