#include "sim/report.hpp"

#include <charconv>
#include <cstdio>

namespace gantry::sim {
namespace {

std::string number(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// Cluster names come from file names; escape what JSON requires anyway.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string summary_fields(const Summary& s) {
  return "\"jobs\":" + std::to_string(s.jobs) +
         ",\"unschedulable\":" + std::to_string(s.unschedulable) +
         ",\"mean_jct_s\":" + number(s.mean_jct_s) + ",\"mean_wait_s\":" + number(s.mean_wait_s) +
         ",\"p50_wait_s\":" + number(s.p50_wait_s) + ",\"p99_wait_s\":" + number(s.p99_wait_s) +
         ",\"max_wait_s\":" + number(s.max_wait_s) + ",\"makespan_s\":" + number(s.makespan_s) +
         ",\"gpu_utilization\":" + number(s.gpu_utilization);
}

std::string cluster_json(const ClusterReport& cluster) {
  std::string out = "{\"name\":" + quoted(cluster.name) +
                    ",\"nodes\":" + std::to_string(cluster.nodes) +
                    ",\"gpus\":" + std::to_string(cluster.gpus);
  if (cluster.summary) out += "," + summary_fields(*cluster.summary);
  return out + "}";
}

void print_row(std::ostream& out, const std::string& name, std::size_t nodes, std::int64_t gpus,
               const Summary& s) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-12s %6zu %6lld %7zu %7zu %11.0f %11.0f %10.0f %10.0f %10.0f %11.0f %6.3f\n",
                name.c_str(), nodes, static_cast<long long>(gpus), s.jobs, s.unschedulable,
                s.mean_jct_s, s.mean_wait_s, s.p50_wait_s, s.p99_wait_s, s.max_wait_s, s.makespan_s,
                s.gpu_utilization);
  out << line;
}

}  // namespace

Report make_report(const std::vector<SimCluster>& clusters, const ReplayConfig& config,
                   const ReplayResult& result) {
  Report report;
  report.config = config;
  for (std::uint32_t c = 0; c < clusters.size(); ++c) {
    ClusterReport cluster{clusters[c].name, clusters[c].nodes.size(), clusters[c].gpus(),
                          std::nullopt};
    if (config.mode == Mode::kIsolated) cluster.summary = summarize(result.jobs, c, cluster.gpus);
    report.gpus += cluster.gpus;
    report.clusters.push_back(std::move(cluster));
  }
  report.overall = summarize(result.jobs, std::nullopt, report.gpus);
  report.evictions = result.evictions;
  return report;
}

void print_table(std::ostream& out, const Report& report) {
  out << "mode " << mode_name(report.config.mode) << ", policy "
      << policy_name(report.config.policy) << "; times in seconds\n";
  out << "cluster       nodes   gpus    jobs unsched    mean_jct   mean_wait   p50_wait   p99_wait"
         "   max_wait    makespan   util\n";
  std::size_t nodes = 0;
  for (const ClusterReport& cluster : report.clusters) {
    nodes += cluster.nodes;
    if (cluster.summary)
      print_row(out, cluster.name, cluster.nodes, cluster.gpus, *cluster.summary);
  }
  print_row(out, "all", nodes, report.gpus, report.overall);
}

std::string to_json(const Report& report) {
  std::string out = "{\"mode\":" + quoted(std::string(mode_name(report.config.mode))) +
                    ",\"policy\":" + quoted(std::string(policy_name(report.config.policy))) + "," +
                    summary_fields(report.overall) +
                    ",\"evictions\":" + std::to_string(report.evictions) +
                    ",\"gpus\":" + std::to_string(report.gpus) + ",\"clusters\":[";
  for (std::size_t c = 0; c < report.clusters.size(); ++c)
    out += (c == 0 ? "" : ",") + cluster_json(report.clusters[c]);
  return out + "]}\n";
}

}  // namespace gantry::sim
