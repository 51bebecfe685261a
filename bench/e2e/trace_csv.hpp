// --trace FILE: every job's submit, ack and dispatch (Commit at a fake
// cluster) time as CSV (ms since the
// first submission), to see when the slow ones happened (a store checkpoint,
// a busy neighbour) rather than only how slow they were.
#pragma once

#include <string>

#include "bench/e2e/timeline.hpp"

namespace gantry::bench::e2e {

// Throws std::runtime_error when the file cannot be written.
void write_trace_csv(const std::string& path, const Timeline& timeline);

}  // namespace gantry::bench::e2e
