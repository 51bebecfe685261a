// gantry-bench-submit: see submit_tool.hpp. Exit 1 when not every job was
// acknowledged and finished (the script reports that), 2 on bad arguments.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/e2e/submit_tool.hpp"

int main(int argc, char** argv) {
  using namespace gantry::bench::e2e;
  SubmitToolOptions options;
  try {
    options = parse_submit_tool_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gantry-bench-submit: %s\n%s", e.what(), submit_tool_usage().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(submit_tool_usage().c_str(), stdout);
    return 0;
  }
  try {
    const SubmitToolResult result = run_submit_tool(options);
    std::printf("%s\n", submit_tool_json(options, result).c_str());
    return result.error.empty() && result.finished == options.jobs ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-bench-submit: %s\n", e.what());
    return 1;
  }
}
