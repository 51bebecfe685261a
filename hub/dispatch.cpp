// A dispatch's own questions: which part is on a cluster, how many replicas a
// part runs (hub/dispatch.hpp).
#include "hub/dispatch.hpp"

namespace gantry::hub {

const DispatchPart* Dispatch::part_on(ClusterIndex cluster) const {
  for (const DispatchPart& part : parts)
    if (part.cluster == cluster) return &part;
  return nullptr;
}

DispatchPart* Dispatch::part_on(ClusterIndex cluster) {
  for (DispatchPart& part : parts)
    if (part.cluster == cluster) return &part;
  return nullptr;
}

std::vector<ClusterIndex> Dispatch::clusters() const {
  std::vector<ClusterIndex> out;
  out.reserve(parts.size());
  for (const DispatchPart& part : parts) out.push_back(part.cluster);
  return out;
}

std::int32_t Dispatch::part_replicas(std::size_t part, std::uint32_t task, bool with_growth) const {
  std::int32_t replicas = parts[part].task_replicas[task];
  if (with_growth && part + 1 == parts.size())
    for (const NodeAssignment& entry : growing)
      if (entry.task == task) ++replicas;
  return replicas;
}

}  // namespace gantry::hub
