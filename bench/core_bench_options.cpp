#include <charconv>
#include <stdexcept>

#include "bench/core_bench.hpp"

namespace gantry::bench {
namespace {

template <typename Number>
Number positive(const std::string& flag, const std::string& text) {
  Number value{};
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || !(value > 0))
    throw std::invalid_argument(flag + ": expected a positive number (got \"" + text + "\")");
  return value;
}

hub::QueueStrategy policy(const std::string& text) {
  if (text == "fifo") return hub::QueueStrategy::kStrictFifo;
  if (text == "firstfit") return hub::QueueStrategy::kBestEffortFifo;
  throw std::invalid_argument("--policy: expected fifo or firstfit (got \"" + text + "\")");
}

}  // namespace

CoreBenchOptions parse_core_bench_options(const std::vector<std::string>& args) {
  CoreBenchOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--no-evictions") {
      options.evictions = false;
      continue;
    }
    if (i + 1 >= args.size())
      throw std::invalid_argument(flag + ": missing value (or unknown flag)");
    const std::string& value = args[++i];
    if (flag == "--clusters")
      options.clusters = positive<std::uint32_t>(flag, value);
    else if (flag == "--nodes")
      options.nodes = positive<std::uint32_t>(flag, value);
    else if (flag == "--queues")
      options.queues = positive<std::uint32_t>(flag, value);
    else if (flag == "--jobs")
      options.jobs = positive<std::uint32_t>(flag, value);
    else if (flag == "--events")
      options.events = positive<std::uint32_t>(flag, value);
    else if (flag == "--max-seconds")
      options.max_seconds = positive<double>(flag, value);
    else if (flag == "--seed")
      options.seed = positive<std::uint64_t>(flag, value);
    else if (flag == "--policy")
      options.strategy = policy(value);
    else if (flag == "--trace-dir")
      options.trace_dir = value;
    else
      throw std::invalid_argument("unknown argument \"" + flag + "\"; see --help");
  }
  return options;
}

std::string core_bench_usage() {
  return R"(usage: gantry-bench-core [--clusters 100] [--nodes 1000] [--queues 1000] [--jobs 1000000]
                         [--events 1000] [--max-seconds 120] [--seed 1] [--policy firstfit|fifo]
                         [--trace-dir DIR] [--no-evictions]
Submits --jobs gang jobs (sizes drawn like the ITP traces) into --queues queues over --clusters
clusters of --nodes 8-GPU nodes, runs the first scheduling pass, then measures --events steady-state
events (one job ends, one is submitted, one pass). The core runs with the hub's default options
(reclaim and preemption on) unless --no-evictions. The last line printed is one JSON object.
)";
}

}  // namespace gantry::bench
