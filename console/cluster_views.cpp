#include "console/cluster_views.hpp"

#include "console/json_fields.hpp"
#include "console/json_writer.hpp"
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

std::string render_clusters_table(const std::vector<protocol::ClusterInfo>& clusters) {
  Table table({"NAME", "READY", "NODES", "GPU(alloc/cap)", "CPU", "MEMORY"});
  for (const auto& cluster : clusters) {
    table.add_row({cluster.name, cluster.ready ? "True" : "False", std::to_string(cluster.nodes),
                   gpu_usage(cluster), format_usage("cpu", cluster.allocated, cluster.capacity),
                   format_usage("memory", cluster.allocated, cluster.capacity)});
  }
  return table.render();
}

std::string render_clusters_json(const std::vector<protocol::ClusterInfo>& clusters) {
  JsonWriter json;
  json.begin_array();
  for (const auto& cluster : clusters) {
    json.begin_object();
    json.key("name").string(cluster.name);
    json.key("ready").boolean(cluster.ready);
    json.key("nodes").number(std::int64_t{cluster.nodes});
    json.key("capacity");
    write_resources(json, cluster.capacity);
    json.key("allocated");
    write_resources(json, cluster.allocated);
    json.key("labels");
    write_labels(json, cluster.labels);
    json.key("lastSeen");
    write_timestamp(json, cluster.last_seen_ms);
    json.end_object();
  }
  json.end_array();
  return json.str() + "\n";
}

}  // namespace gantry::console
