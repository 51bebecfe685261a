// gantry-bench-submit: see submit_tool.hpp. Exit 1 when not every job was
// acknowledged and finished (the script reports that), 2 on bad arguments.
#include <cstdio>
#include <exception>

#include "bench/e2e/submit_tool.hpp"
#include "config/command_line.hpp"

int main(int argc, char** argv) {
  using namespace gantry::bench::e2e;
  SubmitToolOptions options;
  if (const auto exit_code = gantry::command_line::parse_or_exit_code(
          "gantry-bench-submit", GANTRY_VERSION, argc, argv, parse_submit_tool_options,
          submit_tool_usage(), options))
    return *exit_code;
  try {
    const SubmitToolResult result = run_submit_tool(options);
    std::printf("%s\n", submit_tool_json(options, result).c_str());
    const std::uint32_t done = options.accept_only ? result.acked : result.finished;
    return result.error.empty() && done == options.jobs ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-bench-submit: %s\n", e.what());
    return 1;
  }
}
