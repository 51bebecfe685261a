#include "sim/cli_options.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "config/command_line.hpp"
#include "hub/placement_policy.hpp"

namespace gantry::sim {
namespace {

namespace cl = command_line;

const cl::Wording kWording{"{}: missing value", "unknown argument \"{}\"; see --help",
                           "unknown argument \"{}\"; see --help"};

std::vector<std::int64_t> integer_list(const std::string& text) {
  const auto read =
      cl::positive<std::int64_t>("expected a comma-separated list of positive integers");
  std::vector<std::int64_t> values;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    values.push_back(read(std::string(rest.substr(0, comma))));
    if (comma == std::string_view::npos) return values;
    rest.remove_prefix(comma + 1);
  }
}

std::vector<int> cluster_numbers(const std::string& text) {
  std::vector<int> numbers;
  for (std::int64_t value : integer_list(text)) {
    if (value > 999999) throw std::invalid_argument("cluster numbers go up to 999999");
    if (std::find(numbers.begin(), numbers.end(), value) != numbers.end())
      throw std::invalid_argument("cluster " + std::to_string(value) + " is listed twice");
    numbers.push_back(static_cast<int>(value));
  }
  return numbers;
}

// Queue weights as the core accepts them (hub::QueueSpec::weight).
std::vector<std::int32_t> weights(const std::string& text) {
  std::vector<std::int32_t> out;
  for (std::int64_t value : integer_list(text)) {
    if (value > 65535) throw std::invalid_argument("weights go from 1 to 65535");
    out.push_back(static_cast<std::int32_t>(value));
  }
  return out;
}

std::int64_t sla_ms(const std::string& text) {
  // An upper bound of ten years keeps seconds * 1000 far from overflowing.
  constexpr std::int64_t kMaxSeconds = std::int64_t{10} * 365 * 24 * 3600;
  const auto seconds = cl::number_from<std::int64_t>(
      1, kMaxSeconds, "expected a whole number of seconds from 1 to 315360000");
  return seconds(text) * 1000;
}

std::int64_t spare_age_ms(const std::string& text) {
  constexpr std::int64_t kMaxSeconds = std::int64_t{10} * 365 * 24 * 3600;
  const auto seconds = cl::number_from<std::int64_t>(
      0, kMaxSeconds, "expected a whole number of seconds from 0 to 315360000");
  return seconds(text) * 1000;
}

Mode mode(const std::string& text) {
  const auto mode = parse_mode(text);
  if (!mode) throw std::invalid_argument("expected isolated or pooled");
  return *mode;
}

Policy policy(const std::string& text) {
  const auto policy = parse_policy(text);
  if (!policy) throw std::invalid_argument("expected fifo, firstfit, fairshare or backfill");
  return *policy;
}

TimeLimitModel time_limit(const std::string& text) {
  const auto model = parse_time_limit_model(text);
  if (!model) throw std::invalid_argument("expected exact, xF (F >= 1, e.g. x2) or trace-random");
  return *model;
}

std::optional<std::uint32_t> reservations(const std::string& text) {
  const auto count =
      cl::number_from<std::uint32_t>(0, 1000, "expected a whole number from 0 to 1000");
  return count(text);
}

hub::PlannedRuntimes planned_runtimes(const std::string& text) {
  const auto runtimes = hub::parse_planned_runtimes(text);
  if (!runtimes) throw std::invalid_argument("expected limits or learned");
  return *runtimes;
}

// A name the core registers (hub::find_placement_policy).
std::string placement(const std::string& text) {
  if (hub::find_placement_policy(text) == nullptr)
    throw std::invalid_argument("expected one of " + hub::placement_policy_names());
  return text;
}

void define(CLI::App& app, SimOptions& options) {
  cl::configure(app, "usage: gantry-sim --trace-dir DIR [options]\n");
  app.description(
      "Replays the ITP GPU job traces (DIR/clusterNN.csv) through the hub's scheduling core.");
  ReplayConfig& config = options.config;
  cl::add_read<std::filesystem::path>(app, "--trace-dir", options.trace_dir, cl::path,
                                      "the trace files (required)")
      ->type_name("DIR");
  cl::add_read<std::vector<int>>(app, "--clusters", options.clusters, cluster_numbers,
                                 "which clusterNN.csv files (default: every one in DIR)")
      ->type_name("1,2,...");
  cl::add_read<std::vector<std::int64_t>>(app, "--nodes", options.nodes, integer_list,
                                          "8-GPU nodes per cluster, same order as --clusters\n"
                                          "(default: the sizing rule, see sim/README.md)")
      ->type_name("N1,N2,...");
  cl::add_read<double>(app, "--size-percentile", options.size_percentile,
                       cl::number_from<double>(std::numeric_limits<double>::denorm_min(), 100,
                                               "expected a number above 0 and at most 100"),
                       "the sizing rule covers the trace's GPU demand P% of the time\n"
                       "(default 90)")
      ->type_name("P");
  cl::add_read<std::optional<std::filesystem::path>>(
      app, "--openb", options.openb, cl::path,
      "split the Alibaba openb node list over the clusters instead of\n"
      "identical 8-GPU nodes (shares from --nodes or the sizing rule)")
      ->type_name("FILE");
  cl::add_read<Mode>(app, "--mode", config.mode, mode,
                     "jobs stay in their own trace's cluster, or share all (default isolated)")
      ->type_name("isolated|pooled");
  cl::add_read<Policy>(app, "--policy", config.policy, policy,
                       "strict FIFO, skip-what-does-not-fit, (pooled only) one\n"
                       "weighted queue per trace file with reclaim, or first fit\n"
                       "around a reservation for the first blocked job (default fifo)")
      ->type_name("fifo|firstfit|fairshare|backfill");
  cl::add_read<TimeLimitModel>(app, "--time-limit", config.time_limit, time_limit,
                               "each job's time limit: its real duration, F times it, or a\n"
                               "user-like overestimate (see sim/README.md); default none")
      ->type_name("exact|xF|trace-random");
  cl::add_read<std::optional<std::uint64_t>>(
      app, "--time-limit-seed", options.time_limit_seed,
      cl::number_from<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max(),
                                     "expected a whole number from 0"),
      "trace-random: seed of the limits' draws (default " +
          std::to_string(TimeLimitModel::kDefaultSeed) + ")")
      ->type_name("N");
  cl::add_read<std::optional<std::uint32_t>>(
      app, "--reservations", config.reservations, reservations,
      "backfill / fairshare: blocked jobs of the queue order that get a\n"
      "planned start (1 = EASY, the backfill default; fairshare default 0)")
      ->type_name("N");
  cl::add_read<hub::PlannedRuntimes>(
      app, "--planned-runtimes", config.planned_runtimes, planned_runtimes,
      "what backfill plans take runs' ends to be: their time limits (default)\n"
      "or the runtimes each queue's ended runs show (see sim/README.md)")
      ->type_name("limits|learned");
  cl::add_read<std::string>(app, "--placement", config.placement, placement,
                            "the core's cluster and node choice (default binpack, the hub's)")
      ->type_name("binpack|spread|gpu-available|topology");
  app.add_flag("--split", config.split,
               "pooled only: a gang no single cluster has room for may span several\n"
               "(every job gets gantry.io/split: allowed)");
  cl::add_read<std::vector<std::int32_t>>(
      app, "--weights", config.weights, weights,
      "fairshare: queue weights, same order as --clusters (default 1 each)")
      ->type_name("W1,W2,...");
  cl::add_switch_off(app, "--no-reclaim", config.reclaim,
                     "fairshare: never evict running jobs to restore shares");
  cl::add_read<std::optional<std::int64_t>>(app, "--reclaim-spares-after",
                                            config.reclaim_spares_after_ms, spare_age_ms,
                                            "fairshare: reclaim never evicts a run this old\n"
                                            "(default 3600, the hub's; 0: any run)")
      ->type_name("SECONDS");
  cl::add_read<std::int64_t>(app, "--sla", config.sla_ms, sla_ms,
                             "every job pending that long gets nodes held for it")
      ->type_name("SECONDS");
  cl::add_read<std::optional<std::filesystem::path>>(app, "--json", options.json, cl::path,
                                                     "also write the figures as one JSON object")
      ->type_name("FILE");
  cl::add_read<std::optional<std::filesystem::path>>(
      app, "--jobs-csv", options.jobs_csv, cl::path,
      "also write every job that ran (submit, start, wait, cluster, ...) as CSV")
      ->type_name("FILE");
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
  if (options.time_limit_seed) {
    if (options.config.time_limit.kind != TimeLimitModel::Kind::kTraceRandom)
      throw std::invalid_argument("--time-limit-seed: needs --time-limit trace-random");
    options.config.time_limit.seed = *options.time_limit_seed;
  }
  check_replay_config(options.config, options.clusters.size());
}

}  // namespace

SimOptions parse_sim_options(const std::vector<std::string>& args) {
  SimOptions options = cl::parse_options("gantry-sim", define, args, kWording);
  if (!options.help) check_consistent(options);
  return options;
}

std::string sim_usage() {
  return cl::usage("gantry-sim", define);
}

}  // namespace gantry::sim
