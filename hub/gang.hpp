// The shape of a gang: what placement needs to know about a job, without the
// job's containers, commands or names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hub/resources.hpp"

namespace gantry::hub {

// Volcano's networkTopology, resolved for placement (hub/topology.hpp).
struct TopologyConstraint {
  enum class Mode : std::uint8_t { kNone, kHard, kSoft };
  Mode mode = Mode::kNone;
  // Domains of tiers 1 .. highest_tier are tried, tightest first.
  std::int32_t highest_tier = 1;

  bool any() const { return mode != Mode::kNone; }
  bool hard() const { return mode == Mode::kHard; }
};

struct TaskShape {
  std::string name;
  std::int32_t replicas = 1;
  ResourceVector per_replica;  // sum of the containers' requests
  protocol::Labels node_selector;
  // template.spec.tolerations: the node taints its pods accept (hub/tolerations.hpp).
  std::vector<protocol::Toleration> tolerations{};
  // partitionPolicy: replicas in partitions of partition_size (0: none), each
  // within one domain of partition_topology; at least min_partitions whole
  // partitions must be placed.
  std::int32_t partition_size = 0;
  std::int32_t min_partitions = 0;
  TopologyConstraint partition_topology{};
};

struct GangShape {
  std::vector<TaskShape> tasks;
  // Replicas that must start together; 1 <= min_available <= total_replicas().
  std::int32_t min_available = 1;
  // spec.networkTopology: every replica within one domain (hub/topology.hpp).
  TopologyConstraint topology{};

  std::int32_t total_replicas() const;
  // Any topology constraint (job or partition): placement takes the topology path.
  bool topology_aware() const;
  // A hard one anywhere: the gang never splits across clusters.
  bool topology_hard() const;
  ResourceVector total() const;  // every replica
  // Resources of the min_available cheapest replicas: no cluster with less
  // free than this can admit the gang.
  ResourceVector minimum() const;
};

// The same networkTopology and partition policies, task by task (gangs with
// as many tasks): what fails for one fails for a bigger other.
bool same_topology(const GangShape& a, const GangShape& b);

// A task whose node selector names a GPU product asks for its GPUs under that
// product as well (see gpu_product_resource), so that queue limits, shares and
// the pool count them against that product's capacity.
void count_selected_gpu_products(GangShape& gang);

// A one-task gang of `replicas` replicas, each asking for `per_replica`.
GangShape make_uniform_gang(std::int32_t replicas, const ResourceVector& per_replica);

// The ITP-trace convention: g <= gpus_per_node GPUs run as one replica; more
// run as ceil(g / gpus_per_node) replicas of gpus_per_node GPUs each.
GangShape make_gpu_gang(std::int64_t gpus, std::int64_t gpus_per_node);

}  // namespace gantry::hub
