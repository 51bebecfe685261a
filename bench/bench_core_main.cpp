// gantry-bench-core: how fast the scheduling core decides and how much memory
// it keeps per pending job, at hub scale. Prints a table; the last line is one
// JSON object. Never fails on a figure.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench/core_bench.hpp"
#include "config/command_line.hpp"
#include "sim/summary.hpp"

namespace {

using gantry::bench::CoreBenchOptions;
using gantry::bench::CoreBenchResult;

double per_second(double count, double seconds) {
  return seconds > 0 ? count / seconds : 0;
}

struct Percentiles {
  double pass_p50_us, pass_p99_us, decision_p50_us, decision_p99_us, change_p99_ms;
};

double bytes_per_dispatch(const CoreBenchResult& r) {
  return r.first_pass_decisions == 0 ? 0.0
                                     : static_cast<double>(r.first_pass_memory_bytes) /
                                           static_cast<double>(r.first_pass_decisions);
}

void print_table(const CoreBenchOptions& options, const CoreBenchResult& r, const Percentiles& p) {
  std::printf(
      "gantry-bench-core: %u clusters x %u nodes x 8 GPUs, %u queues (%s), %u pending jobs "
      "(mean %.2f GPUs), seed %llu, placement %s, split %s\n",
      options.clusters, options.nodes, options.queues,
      options.strategy == gantry::hub::QueueStrategy::kStrictFifo ? "fifo" : "firstfit",
      options.jobs, r.mean_job_gpus, static_cast<unsigned long long>(options.seed),
      options.placement.c_str(), options.split ? "on" : "off");
  std::printf("%-40s %10s %10s %12s %12s %12s\n", "phase", "count", "seconds", "per_s", "p50_us",
              "p99_us");
  std::printf("%-40s %10u %10.2f %12.0f\n", "submit (jobs)", options.jobs, r.submit_seconds,
              per_second(options.jobs, r.submit_seconds));
  std::printf("%-40s %10zu %10.2f %12.0f\n", "first pass, empty clusters (dispatches)",
              r.first_pass_decisions, r.first_pass_seconds,
              per_second(static_cast<double>(r.first_pass_decisions), r.first_pass_seconds));
  std::printf("%-40s %10zu %10.2f %12.1f %12.1f %12.1f\n", "steady state (passes, one per event)",
              r.events, r.schedule_seconds,
              per_second(static_cast<double>(r.events), r.schedule_seconds), p.pass_p50_us,
              p.pass_p99_us);
  std::printf("%-40s %10llu %10.2f %12.0f %12.3f %12.3f\n", "steady state (gang decisions)",
              static_cast<unsigned long long>(r.attempts), r.schedule_seconds,
              per_second(static_cast<double>(r.attempts), r.schedule_seconds), p.decision_p50_us,
              p.decision_p99_us);
  std::printf("%-40s %10zu %10.2f %12.0f\n", "steady state (dispatches)", r.decisions,
              r.schedule_seconds, per_second(static_cast<double>(r.decisions), r.schedule_seconds));
  std::printf("change to decision (a job ends, one is submitted, the pass): p99 %.3f ms%s\n",
              p.change_p99_ms, options.skip_failing_shapes ? "" : " (visiting every job)");
  std::printf("evictions (reclaim / preemption): %zu%s\n", r.evictions,
              options.evictions ? "" : " (disabled)");
  std::printf("memory: %.0f bytes per pending job (resident +%.1f MiB over the backlog)\n",
              static_cast<double>(r.memory_bytes) / options.jobs,
              static_cast<double>(r.memory_bytes) / (1 << 20));
  std::printf("memory: %.0f bytes per dispatch (resident +%.1f MiB over the first pass)\n",
              bytes_per_dispatch(r), static_cast<double>(r.first_pass_memory_bytes) / (1 << 20));
  std::printf("first pass CPU: user %.2f s, system %.2f s, %lld minor page faults\n",
              r.first_pass_times.user_seconds, r.first_pass_times.system_seconds,
              static_cast<long long>(r.first_pass_times.minor_faults));
}

}  // namespace

int main(int argc, char** argv) {
  CoreBenchOptions options;
  if (const auto exit_code = gantry::command_line::parse_or_exit_code(
          "gantry-bench-core", GANTRY_VERSION, argc, argv, gantry::bench::parse_core_bench_options,
          gantry::bench::core_bench_usage(), options))
    return *exit_code;
  try {
    CoreBenchResult r = gantry::bench::run_core_bench(options);
    std::sort(r.pass_us.begin(), r.pass_us.end());
    std::sort(r.decision_us.begin(), r.decision_us.end());
    std::sort(r.change_to_decision_ms.begin(), r.change_to_decision_ms.end());
    const Percentiles p{
        gantry::sim::nearest_rank(r.pass_us, 50), gantry::sim::nearest_rank(r.pass_us, 99),
        gantry::sim::nearest_rank(r.decision_us, 50), gantry::sim::nearest_rank(r.decision_us, 99),
        gantry::sim::nearest_rank(r.change_to_decision_ms, 99)};
    print_table(options, r, p);
    std::printf(
        "{\"decisions_per_s\":%.1f,\"p50_decision_us\":%.3f,\"p99_decision_us\":%.3f,"
        "\"bytes_per_pending_job\":%.1f,\"pass_p50_us\":%.1f,\"pass_p99_us\":%.1f,"
        "\"dispatches_per_s\":%.1f,\"first_pass_decisions_per_s\":%.1f,\"submits_per_s\":%.1f,"
        "\"events\":%zu,\"evictions\":%zu,\"clusters\":%u,\"nodes_per_cluster\":%u,\"queues\":%u,"
        "\"jobs\":%u,\"placement\":\"%s\",\"split\":%s,\"p99_change_to_decision_ms\":%.3f,"
        "\"skip_failing_shapes\":%s,\"bytes_per_dispatch\":%.1f}\n",
        per_second(static_cast<double>(r.attempts), r.schedule_seconds), p.decision_p50_us,
        p.decision_p99_us, static_cast<double>(r.memory_bytes) / options.jobs, p.pass_p50_us,
        p.pass_p99_us, per_second(static_cast<double>(r.decisions), r.schedule_seconds),
        per_second(static_cast<double>(r.first_pass_decisions), r.first_pass_seconds),
        per_second(options.jobs, r.submit_seconds), r.events, r.evictions, options.clusters,
        options.nodes, options.queues, options.jobs, options.placement.c_str(),
        options.split ? "true" : "false", p.change_p99_ms,
        options.skip_failing_shapes ? "true" : "false", bytes_per_dispatch(r));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "gantry-bench-core: " << error.what() << "\n";
    return 2;
  }
}
