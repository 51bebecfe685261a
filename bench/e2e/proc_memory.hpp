// Resident memory of another process (the hub), from /proc: what its jobs
// cost it once they ended (the store keeps them, the core does not).
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace gantry::bench::e2e {

// Bytes resident now, from /proc/PID/statm; 0 when the process is gone.
std::int64_t resident_bytes_of(pid_t pid);

}  // namespace gantry::bench::e2e
