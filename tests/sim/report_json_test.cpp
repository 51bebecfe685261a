// The --json object: the keys scripts rely on, valid JSON, and the same bytes
// for the same input.
#include <gtest/gtest.h>

// Boost 1.74 property_tree pulls in boost/bind.hpp, which asks for this.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <random>
#include <sstream>

#include "sim/report.hpp"
#include "sim/simulation.hpp"
#include "support/temp_dir.hpp"
#include "tests/sim/hand_trace.hpp"

namespace gantry::sim {
namespace {

const std::vector<std::string> kRequiredKeys{"jobs",       "mean_jct_s",     "mean_wait_s",
                                             "p50_wait_s", "p99_wait_s",     "max_wait_s",
                                             "makespan_s", "gpu_utilization"};

boost::property_tree::ptree parse(const std::string& json) {
  std::istringstream in(json);
  boost::property_tree::ptree tree;
  boost::property_tree::read_json(in, tree);
  return tree;
}

// Values read as text: Boost 1.74's typed get<> trips -Wmaybe-uninitialized
// under the sanitizer build.
double number(const boost::property_tree::ptree& tree, const std::string& key) {
  return std::stod(tree.get<std::string>(key));
}

std::string hand_json(Mode mode) {
  const ReplayConfig config{mode, Policy::kFifo};
  const auto clusters = testing::hand_clusters();
  return to_json(make_report(clusters, config, replay(clusters, testing::hand_traces(), config)));
}

TEST(ReportJson, HasTheRequiredKeysWithTheirValues) {
  const auto tree = parse(hand_json(Mode::kIsolated));
  for (const auto& key : kRequiredKeys) EXPECT_TRUE(tree.get_child_optional(key)) << key;
  EXPECT_EQ(number(tree, "jobs"), 8);
  EXPECT_EQ(number(tree, "unschedulable"), 0);
  EXPECT_DOUBLE_EQ(number(tree, "p50_wait_s"), 55);
  EXPECT_DOUBLE_EQ(number(tree, "makespan_s"), 230);
  EXPECT_EQ(tree.get<std::string>("mode"), "isolated");
  EXPECT_EQ(tree.get<std::string>("policy"), "fifo");
  EXPECT_EQ(number(tree, "gpus"), 24);
}

TEST(ReportJson, IsolatedModeReportsEachCluster) {
  const auto clusters = parse(hand_json(Mode::kIsolated)).get_child("clusters");
  ASSERT_EQ(clusters.size(), 2u);
  const auto& cb = std::next(clusters.begin())->second;
  EXPECT_EQ(cb.get<std::string>("name"), "cb");
  EXPECT_EQ(number(cb, "nodes"), 1);
  EXPECT_EQ(number(cb, "gpus"), 8);
  for (const auto& key : kRequiredKeys) EXPECT_TRUE(cb.get_child_optional(key)) << key;
  EXPECT_DOUBLE_EQ(number(cb, "max_wait_s"), 90);
}

TEST(ReportJson, PooledModeListsClusterSizesOnly) {
  const auto tree = parse(hand_json(Mode::kPooled));
  EXPECT_EQ(tree.get<std::string>("mode"), "pooled");
  const auto& ca = tree.get_child("clusters").begin()->second;
  EXPECT_EQ(number(ca, "gpus"), 16);
  EXPECT_FALSE(ca.get_child_optional("jobs"));
}

TEST(ReportTable, HasOneRowPerClusterAndATotal) {
  const ReplayConfig config{Mode::kIsolated, Policy::kFirstFit};
  const auto clusters = testing::hand_clusters();
  std::ostringstream out;
  print_table(out, make_report(clusters, config, replay(clusters, testing::hand_traces(), config)));
  const std::string table = out.str();
  EXPECT_NE(table.find("policy firstfit"), std::string::npos);
  EXPECT_NE(table.find("\nca "), std::string::npos);
  EXPECT_NE(table.find("\ncb "), std::string::npos);
  EXPECT_NE(table.find("\nall "), std::string::npos);
}

TEST(ReportJson, SaysWhichPlacementAndWhetherJobsMaySplit) {
  const auto clusters = testing::hand_clusters();
  const ReplayConfig plain{Mode::kPooled, Policy::kFifo};
  const auto tree =
      parse(to_json(make_report(clusters, plain, replay(clusters, testing::hand_traces(), plain))));
  EXPECT_EQ(tree.get<std::string>("placement"), "binpack");
  EXPECT_EQ(tree.get<std::string>("split"), "false");
  EXPECT_EQ(number(tree, "split_jobs"), 0);

  ReplayConfig split{Mode::kPooled, Policy::kFirstFit};
  split.placement = "spread";
  split.split = true;
  auto traces = testing::hand_traces();
  // 3 nodes, when the pool is empty again: ca's 2 and cb's 1. Spread also
  // splits a3 (16 GPUs) at 90, when ca and cb have one free node each.
  traces[0].jobs.push_back(TraceJob{"a-wide", 300, 10, 24});
  const Report report = make_report(clusters, split, replay(clusters, traces, split));
  const auto split_tree = parse(to_json(report));
  EXPECT_EQ(split_tree.get<std::string>("placement"), "spread");
  EXPECT_EQ(split_tree.get<std::string>("split"), "true");
  EXPECT_EQ(number(split_tree, "split_jobs"), 2);
  EXPECT_EQ(number(split_tree, "unschedulable"), 0);
  std::ostringstream table;
  print_table(table, report);
  EXPECT_NE(table.str().find("mode pooled, policy firstfit, placement spread, split on;"),
            std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("jobs whose run spanned several clusters: 2\n"), std::string::npos);
}

// A few hundred jobs with ITP-like sizes written as trace files, replayed
// twice from the files: the JSON must be byte-identical.
std::string random_trace(std::uint32_t seed, int jobs) {
  std::mt19937 random(seed);
  const int sizes[] = {1, 1, 1, 1, 1, 1, 2, 4, 8, 8, 16, 32};
  std::string csv = "job_id,submission_time,duration,num_gpu\n";
  long long t = 0;
  for (int j = 0; j < jobs; ++j) {
    t += random() % 600;
    csv += "j" + std::to_string(j) + "," + std::to_string(t) + "," +
           std::to_string(60 + random() % 20000) + "," + std::to_string(sizes[random() % 12]) +
           "\n";
  }
  return csv;
}

std::string replay_from_files(const std::filesystem::path& dir, const ReplayConfig& config) {
  SimOptions options = parse_sim_options({"--trace-dir", dir.string(), "--clusters", "1,2"});
  options.config = config;
  const Simulation sim = prepare_simulation(options);
  return to_json(
      make_report(sim.clusters, options.config, replay(sim.clusters, sim.traces, options.config)));
}

TEST(ReplayDeterminism, SameInputGivesIdenticalJson) {
  support::TempDir dir;
  dir.write("cluster01.csv", random_trace(1, 400));
  dir.write("cluster02.csv", random_trace(2, 300));
  std::vector<ReplayConfig> configs;
  for (Mode mode : {Mode::kIsolated, Mode::kPooled})
    for (Policy policy : {Policy::kFifo, Policy::kFirstFit}) configs.push_back({mode, policy});
  configs.emplace_back(Mode::kPooled, Policy::kFairShare);
  configs.back().weights = {1, 3};
  configs.emplace_back(Mode::kIsolated, Policy::kFirstFit);
  configs.back().sla_ms = 3'600'000;
  for (const char* placement : {"spread", "gpu-available"}) {
    configs.emplace_back(Mode::kPooled, Policy::kFirstFit);
    configs.back().placement = placement;
  }
  configs.emplace_back(Mode::kPooled, Policy::kFifo);
  configs.back().split = true;
  for (const ReplayConfig& config : configs) {
    const std::string first = replay_from_files(dir.path(), config);
    EXPECT_EQ(first, replay_from_files(dir.path(), config));
    EXPECT_EQ(number(parse(first), "jobs"), 700) << first;
  }
}

// Fair share adds a row per queue (trace), with its weight and share of the
// GPU-seconds, and the eviction figures.
TEST(ReportJson, FairShareReportsEachQueue) {
  ReplayConfig config{Mode::kPooled, Policy::kFairShare};
  config.weights = {1, 2};
  const auto clusters = testing::hand_clusters();
  const auto tree = parse(
      to_json(make_report(clusters, config, replay(clusters, testing::hand_traces(), config))));
  EXPECT_EQ(tree.get<std::string>("policy"), "fairshare");
  EXPECT_EQ(tree.get<std::string>("reclaim"), "true");
  for (const char* key : {"evictions", "withdrawn_dispatches", "lost_gpu_seconds", "sla_reached"})
    EXPECT_TRUE(tree.get_child_optional(key)) << key;
  const auto queues = tree.get_child("queues");
  ASSERT_EQ(queues.size(), 2u);
  const auto& cb = std::next(queues.begin())->second;
  EXPECT_EQ(cb.get<std::string>("name"), "cb");
  EXPECT_EQ(number(cb, "weight"), 2);
  EXPECT_EQ(number(cb, "jobs"), 4);
  double share = 0;
  for (const auto& [key, queue] : queues) share += number(queue, "gpu_share");
  EXPECT_DOUBLE_EQ(share, 1);
}

}  // namespace
}  // namespace gantry::sim
