#include "agents/cluster_nodes.hpp"

#include <algorithm>

#include "hub/resources.hpp"

namespace gantry::agents {

namespace {

bool same_nodes(const std::vector<protocol::NodeUsage>& a, const std::vector<protocol::NodeUsage>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.labels == y.labels && x.allocatable == y.allocatable &&
           x.allocated == y.allocated && x.gpu_model == y.gpu_model && x.taints == y.taints &&
           std::equal(x.gpus.begin(), x.gpus.end(), y.gpus.begin(), y.gpus.end(),
                      [](const auto& g, const auto& h) {
                        return g.index == h.index && g.product == h.product &&
                               g.memory_used_bytes == h.memory_used_bytes &&
                               g.memory_total_bytes == h.memory_total_bytes &&
                               g.utilization_percent == h.utilization_percent &&
                               g.processes == h.processes;
                      });
  });
}

}  // namespace

std::string gpu_product_label(const std::string& nvml_name) {
  std::string label = nvml_name;
  std::replace(label.begin(), label.end(), ' ', '-');
  return label;
}

protocol::NodeUsage node_from_report(const protocol::NodeReport& report) {
  protocol::NodeUsage node;
  node.name = report.node;
  node.allocatable["cpu"] = report.cpu_milli;
  node.allocatable["memory"] = report.memory_bytes * hub::kMilli;
  if (!report.gpus.empty()) {
    node.allocatable[std::string(hub::kGpuResourceName)] =
        static_cast<std::int64_t>(report.gpus.size()) * hub::kMilli;
    node.gpu_model = gpu_product_label(report.gpus.front().product);
    node.labels[std::string(hub::kGpuProductLabel)] = node.gpu_model;
  }
  node.gpus = report.gpus;
  return node;
}

bool ClusterNodes::on_report(const protocol::NodeReport& report, TimeMs now) {
  reports_[report.node] = Reported{report, now};
  return remerge();
}

bool ClusterNodes::on_kubernetes(std::vector<protocol::NodeUsage> nodes) {
  kubernetes_ = std::move(nodes);
  return remerge();
}

bool ClusterNodes::expire(TimeMs now) {
  const auto before = reports_.size();
  std::erase_if(reports_, [&](const auto& entry) { return now - entry.second.at > stale_after_ms_; });
  return reports_.size() != before && remerge();
}

std::optional<TimeMs> ClusterNodes::next_expiry() const {
  std::optional<TimeMs> next;
  for (const auto& [name, reported] : reports_) {
    const TimeMs due = reported.at + stale_after_ms_ + 1;
    if (!next || due < *next) next = due;
  }
  return next;
}

bool ClusterNodes::remerge() {
  std::vector<protocol::NodeUsage> merged;
  if (kubernetes_) {
    merged = *kubernetes_;
    for (protocol::NodeUsage& node : merged) {
      const auto reported = reports_.find(node.name);
      if (reported != reports_.end()) node.gpus = reported->second.report.gpus;
    }
  } else {
    for (const auto& [name, reported] : reports_) merged.push_back(node_from_report(reported.report));
  }
  if (same_nodes(merged, merged_)) return false;
  merged_ = std::move(merged);
  return true;
}

}  // namespace gantry::agents
