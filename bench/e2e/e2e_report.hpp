// gantry-bench-e2e's output: a table for people, then one JSON object on the
// last line for scripts.
#pragma once

#include "bench/e2e/e2e_options.hpp"
#include "bench/e2e/e2e_run.hpp"

namespace gantry::bench::e2e {

void print_table(const E2eOptions& options, const E2eFigures& figures);
void print_json(const E2eOptions& options, const E2eFigures& figures);

}  // namespace gantry::bench::e2e
