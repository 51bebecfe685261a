// gantry-bench-submit: submits N /bin/true jobs on the hub's admin socket,
// pipelined, and waits until the hub reports every one started and finished.
// The Gantry half of bench/slurm-vs-gantry.sh; sbatch is the Slurm half.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::bench::e2e {

struct SubmitToolOptions {
  std::string hub = "tcp://127.0.0.1:7801";
  std::uint32_t jobs = 1000;
  std::string prefix = "true";
  std::uint32_t window = 64;
  std::uint32_t clusters = 1;  // wait for this many ready clusters first (0: none)
  // Jobs per request: 1 sends a SubmitJobRequest each, more a
  // SubmitJobsRequest of that many (gantryctl submit -f DIR's path).
  std::uint32_t batch = 1;
  bool accept_only = false;  // report the acknowledgements; do not wait for the runs
  double timeout_s = 300;
  bool help = false;
};

struct SubmitToolResult {
  std::uint32_t acked = 0;  // jobs acknowledged (recorded and queued)
  std::uint32_t requests = 0;
  std::uint32_t started = 0;
  std::uint32_t finished = 0;
  std::int64_t first_submit_ms = 0;  // Unix ms, this process's clock
  std::int64_t last_ack_ms = 0;
  std::int64_t last_started_ms = 0;  // the hub's started time (Admit received)
  std::int64_t last_finished_ms = 0;
  std::string error;
};

// Throws std::invalid_argument naming the flag and value it refused.
SubmitToolOptions parse_submit_tool_options(const std::vector<std::string>& args);
std::string submit_tool_usage();
SubmitToolResult run_submit_tool(const SubmitToolOptions& options);
// One JSON object on one line.
std::string submit_tool_json(const SubmitToolOptions& options, const SubmitToolResult& result);

}  // namespace gantry::bench::e2e
