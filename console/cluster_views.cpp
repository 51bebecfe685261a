#include "console/cluster_views.hpp"

#include <array>
#include <cmath>

#include "console/json_fields.hpp"
#include "console/object_json.hpp"
#include "console/table.hpp"
#include "console/units.hpp"
#include "hub/quantity.hpp"

namespace gantry::console {

namespace {

constexpr const char* kNotReported = "-";
// The FIT cell of a cluster whose nodes are its real nodes (fit_note "").
constexpr const char* kPerNodeFit = "per-node";

std::string gpu_usage(const protocol::ClusterInfo& cluster) {
  // Sum over vendors so a mixed cluster shows every accelerator it has.
  return hub::format_quantity("gpu", total_gpu_milli(cluster.allocated)) + "/" +
         hub::format_quantity("gpu", total_gpu_milli(cluster.capacity));
}

std::vector<std::string> plain_cells(const protocol::ClusterInfo& cluster) {
  return {cluster.name,
          cluster_status(cluster),
          std::to_string(cluster.nodes),
          gpu_usage(cluster),
          format_usage("cpu", cluster.allocated, cluster.capacity),
          format_usage("memory", cluster.allocated, cluster.capacity)};
}

// NVML's aggregates mean nothing while no GPU reports (a cluster without a
// node-role agent, or without GPUs): "-", not a misleading 0.
bool gpus_report(const protocol::ClusterInfo& cluster) {
  return cluster.gpus_reporting > 0;
}

std::string gpu_utilization_cell(const protocol::ClusterInfo& cluster) {
  if (!gpus_report(cluster)) return kNotReported;
  return std::to_string(cluster.gpu_utilization_percent) + "%";
}

std::string gpu_memory_cell(const protocol::ClusterInfo& cluster) {
  if (!gpus_report(cluster)) return kNotReported;
  return format_approximate_bytes(cluster.gpu_memory_used_bytes) + "/" +
         format_approximate_bytes(cluster.gpu_memory_total_bytes);
}

std::string idle_gpus_cell(const protocol::ClusterInfo& cluster) {
  if (!gpus_report(cluster)) return kNotReported;
  return std::to_string(cluster.idle_gpus);
}

// OCM's six scores in the order the wide table and describe show them.
std::array<std::int32_t, 6> ocm_score_values(const protocol::PlacementScores& scores) {
  return {scores.cpu_node_available,    scores.cpu_cluster_available, scores.mem_node_available,
          scores.mem_cluster_available, scores.gpu_node_available,    scores.gpu_cluster_available};
}

const std::vector<std::string> kOcmScoreHeaders{"CPU-NODE", "CPU-CLUS", "MEM-NODE",
                                                "MEM-CLUS", "GPU-NODE", "GPU-CLUS"};

bool has_ocm_scores(const protocol::ClusterInfo& cluster) {
  return cluster.scores.valid_until_ms != 0;
}

void append_ocm_score_cells(const protocol::ClusterInfo& cluster, std::vector<std::string>& cells) {
  for (const std::int32_t score : ocm_score_values(cluster.scores))
    cells.push_back(has_ocm_scores(cluster) ? std::to_string(score) : kNotReported);
}

// Last, so that a note's spaces leave every other column where scripts look.
std::string fit_cell(const protocol::ClusterInfo& cluster) {
  return cluster.fit_note.empty() ? kPerNodeFit : cluster.fit_note;
}

std::vector<std::string> wide_headers() {
  std::vector<std::string> headers{"NAME",   "STATUS",   "NODES",   "GPU(alloc/cap)", "CPU",
                                   "MEMORY", "GPU-UTIL", "GPU-MEM", "IDLE-GPUS"};
  headers.insert(headers.end(), kOcmScoreHeaders.begin(), kOcmScoreHeaders.end());
  headers.push_back("FIT");
  return headers;
}

std::vector<std::string> wide_cells(const protocol::ClusterInfo& cluster) {
  std::vector<std::string> cells = plain_cells(cluster);
  cells.push_back(gpu_utilization_cell(cluster));
  cells.push_back(gpu_memory_cell(cluster));
  cells.push_back(idle_gpus_cell(cluster));
  append_ocm_score_cells(cluster, cells);
  cells.push_back(fit_cell(cluster));
  return cells;
}

// "1.5", "12": tenths of a unit, the decimal left out when it is zero.
std::string tenths_text(long long tenths) {
  const std::string whole = std::to_string(tenths / 10);
  return tenths % 10 == 0 ? whole : whole + "." + std::to_string(tenths % 10);
}

}  // namespace

std::string cluster_status(const protocol::ClusterInfo& cluster) {
  std::string status = cluster.ready ? "Ready"
                       : cluster.not_ready_reason.empty()
                           ? "NotReady"
                           : "NotReady(" + cluster.not_ready_reason + ")";
  // Only where it takes work does it matter that a gang's fit is an upper bound.
  if (cluster.ready && !cluster.fit_note.empty()) status += ",SummaryFit";
  return cluster.cordoned ? status + ",SchedulingDisabled" : status;
}

std::string render_clusters_table(const std::vector<protocol::ClusterInfo>& clusters) {
  Table table({"NAME", "STATUS", "NODES", "GPU(alloc/cap)", "CPU", "MEMORY"});
  for (const auto& cluster : clusters) table.add_row(plain_cells(cluster));
  return table.render();
}

std::string render_clusters_wide_table(const std::vector<protocol::ClusterInfo>& clusters) {
  Table table(wide_headers());
  for (const auto& cluster : clusters) table.add_row(wide_cells(cluster));
  return table.render();
}

std::string render_clusters_json(const std::vector<protocol::ClusterInfo>& clusters) {
  return json_array_text(clusters, cluster_json);
}

std::string render_cluster_gpu_section(const protocol::ClusterInfo& cluster) {
  if (!gpus_report(cluster)) return "GPUs:\n  <none>\n";
  Table table({"REPORTING", "UTILIZATION", "MEMORY", "IDLE"});
  table.add_row({std::to_string(cluster.gpus_reporting), gpu_utilization_cell(cluster),
                 gpu_memory_cell(cluster), idle_gpus_cell(cluster)});
  return "GPUs:\n" + table.render("  ");
}

std::string render_cluster_ocm_section(const protocol::ClusterInfo& cluster) {
  if (!has_ocm_scores(cluster)) return "OCM Scores:\n  <none>\n";
  std::vector<std::string> headers = kOcmScoreHeaders;
  headers.push_back("VALID-UNTIL");
  Table table(std::move(headers));
  std::vector<std::string> cells;
  append_ocm_score_cells(cluster, cells);
  cells.push_back(format_timestamp(cluster.scores.valid_until_ms));
  table.add_row(std::move(cells));
  return "OCM Scores:\n" + table.render("  ");
}

std::string format_approximate_bytes(std::int64_t bytes) {
  static constexpr std::array<const char*, 7> kUnits{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (bytes < 0) return "-" + format_approximate_bytes(bytes == INT64_MIN ? INT64_MAX : -bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  // Past 1023.5 a unit would print as 1024 after rounding: take the next one.
  while (unit + 1 < kUnits.size() && value >= 1023.5) {
    value /= 1024.0;
    ++unit;
  }
  const long long tenths = value < 10 ? std::llround(value * 10) : std::llround(value) * 10;
  return tenths_text(tenths) + kUnits[unit];
}

}  // namespace gantry::console
