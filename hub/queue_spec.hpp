// A queue as an operator declares it (Volcano scheduling.volcano.sh/v1beta1
// Queue): its place in the hierarchy and its share of the global pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hub/resources.hpp"

namespace gantry::hub {

enum class QueueStrategy : std::uint8_t {
  kStrictFifo,      // Volcano dequeueStrategy "fifo": the head job blocks its queue
  kBestEffortFifo,  // Volcano "traverse": jobs that do not fit now are skipped
};

// A per-resource bound where only some resources are set (the rest unbounded
// or derived). `mask` bit i is set when resource id i was given.
struct ResourceBound {
  ResourceVector value;
  std::uint32_t mask = 0;

  bool has(ResourceId id) const { return (mask >> id) & 1u; }
  void set(ResourceId id, std::int64_t milli) {
    value.set(id, milli);
    mask |= 1u << id;
  }
  bool empty() const { return mask == 0; }
  static ResourceBound from_list(const protocol::ResourceList& list);
};

struct QueueSpec {
  std::string name;
  std::string parent = "root";
  std::int32_t weight = 1;    // 1 .. 65535
  std::int32_t priority = 0;  // >= 0; higher is served first among siblings
  ResourceBound capability;   // hard cap (unset: the parent's)
  ResourceBound deserved;     // lendable share (unset: by weight)
  ResourceBound guarantee;    // promised to this queue, never lent (unset: 0)
  bool reclaimable = true;    // may others reclaim what it borrowed
  bool open = true;  // Closed (Closing while jobs remain): no new jobs, runs what it has
  QueueStrategy strategy = QueueStrategy::kBestEffortFifo;
  std::int64_t sla_waiting_ms = 0;  // default for its jobs; 0 = none
  // Time limits (annotations gantry.io/default-time-limit and
  // gantry.io/max-time-limit), as Slurm's partition DefaultTime / MaxTime: a
  // job without a limit gets the default, else the maximum; a job asking more
  // than the maximum is refused. 0 = none.
  std::int64_t default_time_limit_ms = 0;
  std::int64_t max_time_limit_ms = 0;
  // How its jobs' clusters are ranked (annotation gantry.io/placement: a
  // registered PlacementPolicy name); empty: the parent's, up to the hub's default.
  std::string placement;
  // The member clusters' own (Volcano) queue for its jobs' objects
  // (annotation gantry.io/member-queue); empty: each agent's --member-queue.
  std::string member_queue;
  // Volcano spec.extendClusters ("name weight=W capacity=C" each) and
  // spec.affinity (as written, in flow style): accepted, stored and shown;
  // Gantry does not act on them (placement ranks clusters by its policy).
  std::vector<std::string> extend_clusters;
  std::string affinity;
};

}  // namespace gantry::hub
