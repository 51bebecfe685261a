// Resident memory of this process, for memory-per-object figures.
#pragma once

#include <cstdint>

namespace gantry::bench {

// Bytes resident now, from /proc/self/statm; 0 where that cannot be read.
std::int64_t resident_bytes();

// CPU time and minor page faults of this process so far (getrusage): a
// phase's kernel time is mostly first touches of new memory.
struct ProcessTimes {
  double user_seconds = 0;
  double system_seconds = 0;
  std::int64_t minor_faults = 0;
};
ProcessTimes process_times();
ProcessTimes operator-(const ProcessTimes& later, const ProcessTimes& earlier);

}  // namespace gantry::bench
