// A member cluster's node inventory, for agents that cannot ask a Kubernetes
// API server (the sim and process executors). Two formats:
//   * YAML (see examples/inventories/*.yaml):
//       cluster: {name: east, labels: {region: us-east}}   # optional
//       nodes:
//         - name: gpu-0            # or `count: 4` with `namePrefix: gpu-`
//           labels: {nvidia.com/gpu.product: A100}
//           allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: 8}
//           taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]  # optional
//   * The Alibaba openb node CSV (sn,cpu_milli,memory_mib,gpu,model): the GPU
//     model becomes label nvidia.com/gpu.product.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::config {

struct Inventory {
  std::string cluster_name;  // empty when the file does not say
  protocol::Labels cluster_labels;
  std::vector<protocol::NodeUsage> nodes;  // allocated is empty
};

// Chooses the format by extension (.csv = openb). Throws hub::FieldError
// naming the field (or CSV line and column) on bad input, std::runtime_error
// when the file cannot be read.
Inventory load_inventory(const std::string& path);
Inventory parse_inventory_yaml(const std::string& text);
Inventory parse_openb_csv(const std::string& text);

}  // namespace gantry::config
