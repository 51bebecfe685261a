// What the node has and uses, from /proc. A node-role pod sees the node's
// /proc/stat, /proc/meminfo and /proc/loadavg (they are not namespaced), so
// these are the node's figures, not the pod's.
#pragma once

#include <cstdint>
#include <filesystem>

namespace gantry::agents {

struct HostStats {
  std::int64_t cpu_milli = 0;               // online CPUs x 1000
  std::int64_t memory_bytes = 0;            // MemTotal
  std::int64_t memory_available_bytes = 0;  // MemAvailable
  double load1 = 0.0;                       // the 1-minute load average
};

// Online CPUs from <proc>/stat's cpuN lines, MemTotal and MemAvailable from
// <proc>/meminfo (kB -> bytes), load1 from <proc>/loadavg. Throws
// std::runtime_error naming the file and the line it could not read.
HostStats read_host_stats(const std::filesystem::path& proc = "/proc");

}  // namespace gantry::agents
