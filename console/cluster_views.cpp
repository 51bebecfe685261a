#include "console/cluster_views.hpp"

#include "console/json_fields.hpp"
#include "console/table.hpp"
#include "console/units.hpp"
#include "hub/quantity.hpp"

namespace gantry::console {

namespace {

std::string gpu_usage(const protocol::ClusterInfo& cluster) {
  // Sum over vendors so a mixed cluster shows every accelerator it has.
  return hub::format_quantity("gpu", total_gpu_milli(cluster.allocated)) + "/" +
         hub::format_quantity("gpu", total_gpu_milli(cluster.capacity));
}

}  // namespace

std::string cluster_status(const protocol::ClusterInfo& cluster) {
  const std::string readiness = cluster.ready ? "Ready" : "NotReady";
  return cluster.cordoned ? readiness + ",SchedulingDisabled" : readiness;
}

std::string render_clusters_table(const std::vector<protocol::ClusterInfo>& clusters) {
  Table table({"NAME", "STATUS", "NODES", "GPU(alloc/cap)", "CPU", "MEMORY"});
  for (const auto& cluster : clusters) {
    table.add_row({cluster.name, cluster_status(cluster), std::to_string(cluster.nodes),
                   gpu_usage(cluster), format_usage("cpu", cluster.allocated, cluster.capacity),
                   format_usage("memory", cluster.allocated, cluster.capacity)});
  }
  return table.render();
}

std::string render_clusters_json(const std::vector<protocol::ClusterInfo>& clusters) {
  return json_array_text(clusters, [](const protocol::ClusterInfo& cluster) -> Json {
    return {{"name", cluster.name},
            {"ready", cluster.ready},
            {"cordoned", cluster.cordoned},
            {"nodes", cluster.nodes},
            {"capacity", resources_json(cluster.capacity)},
            {"allocated", resources_json(cluster.allocated)},
            {"labels", cluster.labels},
            {"lastSeen", timestamp_json(cluster.last_seen_ms)}};
  });
}

}  // namespace gantry::console
