#include "sim/cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace gantry::sim {
namespace {

[[noreturn]] void fail(const std::string& flag, const std::string& problem,
                       const std::string& value) {
  throw std::invalid_argument(flag + ": " + problem + " (got \"" + value + "\")");
}

std::int64_t positive_integer(const std::string& flag, std::string_view text,
                              const std::string& whole) {
  std::int64_t value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || value <= 0)
    fail(flag, "expected a comma-separated list of positive integers", whole);
  return value;
}

std::vector<std::int64_t> integer_list(const std::string& flag, const std::string& text) {
  std::vector<std::int64_t> values;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    values.push_back(positive_integer(flag, rest.substr(0, comma), text));
    if (comma == std::string_view::npos) return values;
    rest.remove_prefix(comma + 1);
  }
}

std::vector<int> cluster_numbers(const std::string& text) {
  std::vector<int> numbers;
  for (std::int64_t value : integer_list("--clusters", text)) {
    if (value > 999999) fail("--clusters", "cluster numbers go up to 999999", text);
    if (std::find(numbers.begin(), numbers.end(), value) != numbers.end())
      fail("--clusters", "cluster " + std::to_string(value) + " is listed twice", text);
    numbers.push_back(static_cast<int>(value));
  }
  return numbers;
}

// Queue weights as the core accepts them (hub::QueueSpec::weight).
std::vector<std::int32_t> weights(const std::string& text) {
  std::vector<std::int32_t> out;
  for (std::int64_t value : integer_list("--weights", text)) {
    if (value > 65535) fail("--weights", "weights go from 1 to 65535", text);
    out.push_back(static_cast<std::int32_t>(value));
  }
  return out;
}

std::int64_t sla_ms(const std::string& text) {
  std::int64_t seconds = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  // An upper bound of ten years keeps seconds * 1000 far from overflowing.
  constexpr std::int64_t kMaxSeconds = std::int64_t{10} * 365 * 24 * 3600;
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || seconds <= 0 ||
      seconds > kMaxSeconds)
    fail("--sla", "expected a whole number of seconds from 1 to 315360000", text);
  return seconds * 1000;
}

double percentile(const std::string& text) {
  double value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || !(value > 0) ||
      value > 100)
    fail("--size-percentile", "expected a number above 0 and at most 100", text);
  return value;
}

// Splits "--flag=value" or takes the next argument as the value.
std::string value_of(const std::vector<std::string>& args, std::size_t& i, const std::string& flag,
                     const std::optional<std::string>& inline_value) {
  if (inline_value) return *inline_value;
  if (i + 1 >= args.size()) throw std::invalid_argument(flag + ": missing value");
  return args[++i];
}

void check_consistent(SimOptions& options) {
  if (options.trace_dir.empty()) throw std::invalid_argument("--trace-dir: required");
  if (!options.nodes.empty() && options.clusters.empty())
    throw std::invalid_argument("--nodes: needs --clusters, so that each count has its cluster");
  if (!options.nodes.empty() && options.nodes.size() != options.clusters.size())
    throw std::invalid_argument("--nodes: " + std::to_string(options.nodes.size()) +
                                " values for " + std::to_string(options.clusters.size()) +
                                " clusters; give one per --clusters entry, in the same order");
  if (!options.config.weights.empty() && options.clusters.empty())
    throw std::invalid_argument("--weights: needs --clusters, so that each weight has its cluster");
  check_replay_config(options.config, options.clusters.size());
}

}  // namespace

SimOptions parse_sim_options(const std::vector<std::string>& args) {
  SimOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> inline_value;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else if (flag == "--trace-dir") {
      options.trace_dir = value_of(args, i, flag, inline_value);
    } else if (flag == "--clusters") {
      options.clusters = cluster_numbers(value_of(args, i, flag, inline_value));
    } else if (flag == "--nodes") {
      options.nodes = integer_list(flag, value_of(args, i, flag, inline_value));
    } else if (flag == "--openb") {
      options.openb = value_of(args, i, flag, inline_value);
    } else if (flag == "--size-percentile") {
      options.size_percentile = percentile(value_of(args, i, flag, inline_value));
    } else if (flag == "--mode") {
      const std::string text = value_of(args, i, flag, inline_value);
      const auto mode = parse_mode(text);
      if (!mode) fail(flag, "expected isolated or pooled", text);
      options.config.mode = *mode;
    } else if (flag == "--policy") {
      const std::string text = value_of(args, i, flag, inline_value);
      const auto policy = parse_policy(text);
      if (!policy) fail(flag, "expected fifo, firstfit or fairshare", text);
      options.config.policy = *policy;
    } else if (flag == "--weights") {
      options.config.weights = weights(value_of(args, i, flag, inline_value));
    } else if (flag == "--no-reclaim" && !inline_value) {
      options.config.reclaim = false;
    } else if (flag == "--sla") {
      options.config.sla_ms = sla_ms(value_of(args, i, flag, inline_value));
    } else if (flag == "--json") {
      options.json = value_of(args, i, flag, inline_value);
    } else {
      throw std::invalid_argument("unknown argument \"" + args[i] + "\"; see --help");
    }
  }
  if (!options.help) check_consistent(options);
  return options;
}

std::string sim_usage() {
  return R"(usage: gantry-sim --trace-dir DIR [options]
Replays the ITP GPU job traces (DIR/clusterNN.csv) through the hub's scheduling core.
  --clusters 1,2,...      which clusterNN.csv files (default: every one in DIR)
  --nodes N1,N2,...       8-GPU nodes per cluster, same order as --clusters
                          (default: the sizing rule, see sim/README.md)
  --size-percentile P     the sizing rule covers the trace's GPU demand P% of the time
                          (default 90)
  --openb FILE            split the Alibaba openb node list over the clusters instead of
                          identical 8-GPU nodes (shares from --nodes or the sizing rule)
  --mode isolated|pooled  jobs stay in their own trace's cluster, or share all (default isolated)
  --policy fifo|firstfit|fairshare
                          strict FIFO, skip-what-does-not-fit, or (pooled only) one
                          weighted queue per trace file with reclaim (default fifo)
  --weights W1,W2,...     fairshare: queue weights, same order as --clusters (default 1 each)
  --no-reclaim            fairshare: never evict running jobs to restore shares
  --sla SECONDS           every job pending that long gets nodes held for it
  --json FILE             also write the figures as one JSON object
)";
}

}  // namespace gantry::sim
