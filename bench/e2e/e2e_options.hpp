// gantry-bench-e2e's command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::bench::e2e {

struct E2eOptions {
  std::uint32_t jobs = 20000;
  std::uint32_t clusters = 100;
  std::uint32_t nodes = 10;  // per cluster
  std::uint32_t gpus_per_node = 8;
  std::uint32_t window = 64;            // submissions in flight on the admin socket
  double rate = 0;                      // submissions per second; 0 = as fast as acks allow
  std::uint32_t hold_ms = 100;          // how long a fake cluster "runs" a job before Completed
  bool usage_reports = true;            // send a UsageReport after each allocation change
  std::uint32_t raw_messages = 200000;  // pipelined round trips for the raw ZeroMQ figure
  std::uint32_t heartbeat_ms = 1000;
  std::uint32_t scrape_ms = 0;  // > 0: the hub serves /metrics, scraped this often
  bool web_stream = false;      // the hub serves its web view; /api/stream is held open
  double settle_seconds = 30;  // how long to wait for the last commits
  std::string hub_binary;      // default: the gantry-hub built with this benchmark
  std::string hub_log_level = "warn";
  std::string trace_file;  // per-job CSV, when set
  std::string state_dir;   // default: a fresh temporary directory, removed after
  std::string store;       // the hub's --store; "": gantry.db in the state directory
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the value it refused.
E2eOptions parse_e2e_options(const std::vector<std::string>& args);
std::string e2e_usage();

}  // namespace gantry::bench::e2e
