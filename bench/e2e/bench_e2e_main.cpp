// gantry-bench-e2e: the real gantry-hub with simulated member clusters over
// loopback ZeroMQ, loaded on its admin socket. Prints a table; the last line
// is one JSON object. Never fails on a figure: exit 1 only when the run itself
// could not happen (hub missing, clusters never ready), 2 on bad arguments.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/e2e/e2e_options.hpp"
#include "bench/e2e/e2e_report.hpp"
#include "bench/e2e/e2e_run.hpp"

int main(int argc, char** argv) {
  using namespace gantry::bench::e2e;
  E2eOptions options;
  try {
    options = parse_e2e_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gantry-bench-e2e: %s\n%s", e.what(), e2e_usage().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(e2e_usage().c_str(), stdout);
    return 0;
  }
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
