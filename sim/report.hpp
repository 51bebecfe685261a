// A replay's figures as people read them (a table) and as scripts read them
// (one JSON object; keys documented in sim/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/cluster_layout.hpp"
#include "sim/queue_report.hpp"
#include "sim/replay.hpp"
#include "sim/summary.hpp"

namespace gantry::sim {

struct ClusterReport {
  std::string name;
  std::size_t nodes = 0;
  std::int64_t gpus = 0;
  std::optional<Summary> summary;  // isolated mode only: its own trace's jobs
};

struct Report {
  ReplayConfig config;
  Summary overall;
  std::int64_t gpus = 0;
  std::size_t evictions = 0;
  std::size_t withdrawn_dispatches = 0;
  std::vector<ClusterReport> clusters;
  std::vector<QueueReport> queues;  // fair share only (make_queue_reports)
};

Report make_report(const std::vector<SimCluster>& clusters, const ReplayConfig& config,
                   const ReplayResult& result);

void print_table(std::ostream& out, const Report& report);

// One JSON object; numbers are written in an exact (round-trip) form so the
// same report always gives the same bytes.
std::string to_json(const Report& report);

}  // namespace gantry::sim
