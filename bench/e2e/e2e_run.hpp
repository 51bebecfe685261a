// One benchmark run: the raw ZeroMQ ceiling first (alone on the machine),
// then the hub child process, the simulated clusters and the load.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "bench/e2e/e2e_options.hpp"
#include "bench/e2e/fake_cluster.hpp"
#include "bench/e2e/latency.hpp"
#include "bench/e2e/load_generator.hpp"
#include "bench/e2e/page_watcher.hpp"
#include "bench/e2e/raw_echo.hpp"
#include "bench/e2e/scraper.hpp"

namespace gantry::bench::e2e {

struct E2eFigures {
  LoadResult load;
  std::uint32_t committed = 0;  // jobs whose Commit reached a fake cluster
  double submits_per_s = 0;     // acknowledged submissions per second
  double commits_per_s = 0;     // first Commits seen by the fake clusters per second
  double load_seconds = 0;      // first submit to last ack
  Percentiles submit_to_ack;
  Percentiles submit_to_prepare;  // submit to the first Prepare at a fake cluster
  Percentiles submit_to_commit;   // submit to the first Commit at a fake cluster
  RawEchoResult raw;
  double ratio_to_raw = 0;  // submits_per_s / raw pipelined round trips per s
  std::map<std::string, double> hub_thread_cpu_s;  // over the load phase
  double hub_cpu_s = 0;
  double bench_cpu_s = 0;               // this process: load generator + fake clusters
  std::uintmax_t store_bytes = 0;       // gantry.db + its WAL after the run
  std::int64_t hub_resident_bytes = 0;  // the hub's RSS once the jobs have settled
  ClusterCounters clusters;
  ScrapeCounters scrapes;      // with --scrape-ms
  PageCounters page;           // with --web-stream
  std::string kept_state_dir;  // set when something failed and the hub's log was kept
};

std::string default_hub_binary();

// Throws std::runtime_error when the hub cannot be started or the clusters
// never become ready; a slow hub is a figure, not an error.
E2eFigures run_e2e(const E2eOptions& options);

}  // namespace gantry::bench::e2e
