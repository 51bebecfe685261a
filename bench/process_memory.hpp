// Resident memory of this process, for memory-per-object figures.
#pragma once

#include <cstdint>

namespace gantry::bench {

// Bytes resident now, from /proc/self/statm; 0 where that cannot be read.
std::int64_t resident_bytes();

}  // namespace gantry::bench
