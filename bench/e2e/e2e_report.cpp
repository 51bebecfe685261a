#include "bench/e2e/e2e_report.hpp"

#include <cstdio>
#include <string>
#include <thread>

namespace gantry::bench::e2e {

namespace {

constexpr double kGoalSubmitsPerS = 5000;
constexpr double kGoalP99Ms = 20;

void print_latency(const char* what, const Percentiles& p) {
  std::printf("%-34s %8u %9.2f %9.2f %9.2f %9.2f\n", what, p.count, p.p50_ms, p.p90_ms, p.p99_ms,
              p.max_ms);
}

void print_costs(const E2eOptions& options, const E2eFigures& f) {
  const double jobs = f.load.acked > 0 ? f.load.acked : 1;
  std::printf("\nCPU over the load phase (%.2f s wall, machine has %u cores):\n", f.load_seconds,
              std::thread::hardware_concurrency());
  std::printf("  %-30s %9.2f s  %7.1f us/job\n", "gantry-hub, all threads", f.hub_cpu_s,
              f.hub_cpu_s / jobs * 1e6);
  for (const auto& [name, seconds] : f.hub_thread_cpu_s) {
    if (seconds >= 0.005) std::printf("    %-28s %9.2f s\n", name.c_str(), seconds);
  }
  std::printf("  %-30s %9.2f s  %7.1f us/job\n", "benchmark (load + clusters)", f.bench_cpu_s,
              f.bench_cpu_s / jobs * 1e6);
  std::printf(
      "store: %.1f MiB of gantry.db + WAL (%.0f bytes/job; WAL, synchronous=NORMAL: no "
      "fsync per job, the hub has no flag to relax it further)\n",
      f.store_bytes / 1048576.0, f.store_bytes / jobs);
  std::printf("hub resident after the run: %.1f MiB (%.0f bytes/job)\n",
              f.hub_resident_bytes / 1048576.0, f.hub_resident_bytes / jobs);
  std::printf(
      "fake clusters: %llu prepares, %llu rejected (did not fit), %llu commits, %llu aborts, "
      "%llu cancels, %llu hub errors; frames in %llu, out %llu (%llu UsageReports); hold %u ms\n",
      static_cast<unsigned long long>(f.clusters.prepares),
      static_cast<unsigned long long>(f.clusters.rejects),
      static_cast<unsigned long long>(f.clusters.commits),
      static_cast<unsigned long long>(f.clusters.aborts),
      static_cast<unsigned long long>(f.clusters.cancels),
      static_cast<unsigned long long>(f.clusters.hub_errors),
      static_cast<unsigned long long>(f.clusters.frames_in),
      static_cast<unsigned long long>(f.clusters.frames_out),
      static_cast<unsigned long long>(f.clusters.usage_reports), options.hold_ms);
}

void print_goals(const E2eFigures& f) {
  std::printf("\ngoal >= %.0f submits/s: %s (%.0f)\n", kGoalSubmitsPerS,
              f.submits_per_s >= kGoalSubmitsPerS ? "met" : "MISSED", f.submits_per_s);
  std::printf("goal p99 submit->commit <= %.0f ms: %s (%.2f ms)\n", kGoalP99Ms,
              f.submit_to_commit.p99_ms <= kGoalP99Ms ? "met" : "MISSED",
              f.submit_to_commit.p99_ms);
}

}  // namespace

void print_table(const E2eOptions& options, const E2eFigures& f) {
  std::printf(
      "gantry-bench-e2e: hub + %u simulated clusters x %u nodes x %u GPUs over loopback "
      "ZeroMQ; %u jobs (1 GPU each), window %u, rate %s\n",
      options.clusters, options.nodes, options.gpus_per_node, options.jobs, options.window,
      options.rate > 0 ? std::to_string(options.rate).c_str() : "max");
  std::printf("\n%-34s %12s\n", "throughput", "per_s");
  std::printf("%-34s %12.0f\n", "submits acknowledged", f.submits_per_s);
  std::printf("%-34s %12.0f\n", "jobs committed", f.commits_per_s);
  std::printf("%-34s %12.0f\n", "raw ZeroMQ round trips, pipelined", f.raw.pipelined_per_s);
  std::printf("%-34s %12.0f  (p50 %.1f us)\n", "raw ZeroMQ round trips, 1 at a time",
              f.raw.ping_pong_per_s, f.raw.ping_pong_p50_us);
  std::printf("%-34s %12.3f  (submits / raw pipelined, same window %u, %zu-byte frames)\n",
              "ratio to raw", f.ratio_to_raw, f.raw.window, f.raw.bytes);
  std::printf("\n%-34s %8s %9s %9s %9s %9s\n", "latency (ms)", "count", "p50", "p90", "p99", "max");
  print_latency("submit -> ack", f.submit_to_ack);
  print_latency("submit -> Prepare at cluster", f.submit_to_prepare);
  print_latency("submit -> Commit at cluster", f.submit_to_commit);
  std::printf("\nsubmissions: %u acked, %u refused, %u unanswered; %u committed\n", f.load.acked,
              f.load.refused, f.load.unanswered, f.committed);
  if (!f.load.first_error.empty()) std::printf("first refusal: %s\n", f.load.first_error.c_str());
  if (!f.kept_state_dir.empty()) std::printf("hub log kept in %s\n", f.kept_state_dir.c_str());
  print_costs(options, f);
  print_goals(f);
}

// The JSON keys kept their names from protocol version 1 so that figures
// before and after stay comparable; since version 2 a job is "dispatched"
// when the first Commit of its dispatch reaches a fake cluster (the moment
// its replicas may start), after Prepare and Admit:
// - p99_submit_to_dispatch_ms / p50_...: submit sent -> that Commit received
// - p99_submit_to_prepare_ms / p50_...: submit sent -> the first Prepare
//   received (the job reached an agent: version 1's Dispatch moment)
// - dispatches_per_s: such first Commits per second since the first submit
// - dispatched: jobs whose Commit arrived
// - submits_per_s: acknowledged submissions per second; acked: their count
// - raw_zmq_*: the loopback ZeroMQ ceiling; ratio_to_raw: submits_per_s over
//   raw_zmq_roundtrips_per_s
// - hub_cpu_us_per_job: the hub's CPU over the load phase per acked job
// - scrapes, scrape_failures, scrape_bytes, slowest_scrape_ms: with --scrape-ms,
//   the /metrics GETs answered during the load phase, those that were not, the
//   last one's size and the slowest
// - page_events, page_bytes: with --web-stream, the overview events the open
//   /api/stream delivered during the load phase and their bytes
// - jobs, clusters, window: the run's --jobs, --clusters and --window
void print_json(const E2eOptions& options, const E2eFigures& f) {
  std::printf(
      "{\"submits_per_s\": %.1f, \"p99_submit_to_dispatch_ms\": %.3f, "
      "\"p50_submit_to_dispatch_ms\": %.3f, \"dispatches_per_s\": %.1f, "
      "\"raw_zmq_roundtrips_per_s\": %.1f, \"raw_zmq_pingpong_per_s\": %.1f, "
      "\"ratio_to_raw\": %.4f, \"jobs\": %u, \"acked\": %u, \"dispatched\": %u, "
      "\"clusters\": %u, \"window\": %u, \"hub_cpu_us_per_job\": %.1f, "
      "\"p99_submit_to_prepare_ms\": %.3f, \"p50_submit_to_prepare_ms\": %.3f, "
      "\"scrapes\": %llu, \"scrape_failures\": %llu, \"scrape_bytes\": %llu, "
      "\"slowest_scrape_ms\": %.1f, \"page_events\": %llu, \"page_bytes\": %llu}\n",
      f.submits_per_s, f.submit_to_commit.p99_ms, f.submit_to_commit.p50_ms, f.commits_per_s,
      f.raw.pipelined_per_s, f.raw.ping_pong_per_s, f.ratio_to_raw, options.jobs, f.load.acked,
      f.committed, options.clusters, options.window,
      f.load.acked > 0 ? f.hub_cpu_s / f.load.acked * 1e6 : 0, f.submit_to_prepare.p99_ms,
      f.submit_to_prepare.p50_ms, static_cast<unsigned long long>(f.scrapes.scrapes),
      static_cast<unsigned long long>(f.scrapes.failures),
      static_cast<unsigned long long>(f.scrapes.last_bytes), f.scrapes.slowest_ms,
      static_cast<unsigned long long>(f.page.events),
      static_cast<unsigned long long>(f.page.bytes));
}

}  // namespace gantry::bench::e2e
