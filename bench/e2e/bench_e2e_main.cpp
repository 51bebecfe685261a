// gantry-bench-e2e: the real gantry-hub with simulated member clusters over
// loopback ZeroMQ, loaded on its admin socket. Prints a table; the last line
// is one JSON object. Never fails on a figure: exit 1 only when the run itself
// could not happen (hub missing, clusters never ready), 2 on bad arguments.
#include <cstdio>
#include <exception>

#include "bench/e2e/e2e_options.hpp"
#include "bench/e2e/e2e_report.hpp"
#include "bench/e2e/e2e_run.hpp"
#include "config/command_line.hpp"

int main(int argc, char** argv) {
  using namespace gantry::bench::e2e;
  E2eOptions options;
  if (const auto exit_code = gantry::command_line::parse_or_exit_code(
          "gantry-bench-e2e", GANTRY_VERSION, argc, argv, parse_e2e_options, e2e_usage(), options))
    return *exit_code;
  try {
    const E2eFigures figures = run_e2e(options);
    print_table(options, figures);
    std::fflush(stdout);
    print_json(options, figures);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-bench-e2e: %s\n", e.what());
    return 1;
  }
  return 0;
}
