// Why a job is pending: computed as numbers on a failed placement (no
// allocation), rendered as text only when asked.
#include <algorithm>
#include <array>

#include "hub/cluster_filters.hpp"
#include "hub/quantity.hpp"
#include "hub/scheduler.hpp"
#include "hub/topology.hpp"

namespace gantry::hub {

namespace {

using Kind = PendingReason::Kind;

// The first resource where `need` exceeds `have`, or the GPU if none does.
// Short of GPUs and of the GPU product the job selected, the product is named:
// it is the tighter and more telling limit.
ResourceId short_resource(const ResourceVector& need, const ResourceVector& have) {
  ResourceId which = kGpu;
  if (!need.first_excess(have, which) || which != kGpu) return which;
  for (ResourceId r = kGpu + 1; r < kMaxResources; ++r)
    if (need.get(r) > have.get(r) && is_gpu_product(r)) return r;
  return which;
}

std::string amount(ResourceId resource, std::int64_t milli) {
  const std::string name = ResourceNames::name(resource);
  return format_quantity(name, milli) + " " + name;
}

// Nodes with room that a gang may not use because of their taints look like
// free capacity to the user: "; nodes with room have untolerated taints
// (nvidia.com/gpu=present:NoSchedule)", or "" when taints keep it off none.
std::string untolerated_taints_note(const ClusterState& cluster, const GangShape& gang) {
  for (const TaskShape& task : gang.tasks) {
    const std::string taints = untolerated_taints(cluster, task, NodeRoom::kFree);
    if (!taints.empty()) return "; nodes with room have untolerated taints (" + taints + ")";
  }
  return "";
}

// As kube-scheduler's "0/3 nodes are available: ...": each cluster counted
// under the check that turns it away now (hub/cluster_filters.hpp).
std::string no_eligible_cluster(const std::vector<ClusterState>& clusters, const Job& job) {
  if (clusters.empty()) return "no member cluster has joined";
  const std::string refusals = eligibility_refusals(clusters, job);
  if (refusals.empty())  // one became eligible since: the next pass tries it
    return "when the last pass looked, no cluster it may run on was ready and uncordoned";
  return "0/" + std::to_string(clusters.size()) + " clusters may take it: " + refusals;
}

}  // namespace

namespace {

// The resource a reason names: the one most of the eligible clusters are
// short of (ties: GPUs, else the first by resource id), so one reason
// compares clusters in one unit and does not change with the order the
// clusters joined in.
class ShortfallTally {
 public:
  void add(const ResourceVector& need, const ResourceVector& have) {
    const ResourceId r = short_resource(need, have);
    if (need.get(r) > have.get(r)) ++count_[r];
  }
  ResourceId most_short() const {
    ResourceId best = kGpu;
    for (ResourceId r = 0; r < kMaxResources; ++r)
      if (count_[r] > count_[best]) best = r;
    return best;
  }

 private:
  std::array<std::size_t, kMaxResources> count_{};
};

// Of the eligible clusters short of `resource` in `amount` (allocatable or
// free), or of all eligible ones when none is, the one with the most of it;
// ties to the first by name, not by joining order.
template <class Amount>
ClusterIndex most_of(const std::vector<ClusterState>& clusters, const Job& job, ResourceId resource,
                     Amount amount) {
  const std::int64_t needed = job.minimum().get(resource);
  const auto more = [&](ClusterIndex c, ClusterIndex best) {
    if (best == kNoCluster) return true;
    const std::int64_t here = amount(clusters[c]).get(resource);
    const std::int64_t there = amount(clusters[best]).get(resource);
    return here > there || (here == there && clusters[c].name() < clusters[best].name());
  };
  ClusterIndex best_short = kNoCluster, best_any = kNoCluster;
  for (ClusterIndex c = 0; c < clusters.size(); ++c) {
    if (!PlacementPolicy::eligible(clusters[c], c, job)) continue;
    if (more(c, best_any)) best_any = c;
    if (amount(clusters[c]).get(resource) < needed && more(c, best_short)) best_short = c;
  }
  return best_short != kNoCluster ? best_short : best_any;
}

const ResourceVector& allocatable_of(const ClusterState& cluster) {
  return cluster.total_allocatable();
}
const ResourceVector& free_of(const ClusterState& cluster) {
  return cluster.total_free();
}

}  // namespace

PendingReason SchedulerCore::why_unplaced(const Job& job, const Placement& placement) const {
  PendingReason reason;
  bool any_ready = false;
  bool fits_some_cluster = false;
  ShortfallTally short_of_allocatable, short_of_free;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!PlacementPolicy::eligible(cluster, c, job)) continue;
    any_ready = true;
    if (job.minimum().fits_in(cluster.total_allocatable())) fits_some_cluster = true;
    short_of_allocatable.add(job.minimum(), cluster.total_allocatable());
    short_of_free.add(job.minimum(), cluster.total_free());
  }
  if (!any_ready) {
    const bool restricted = !job.allowed_clusters.empty() || job.cluster_selector() != nullptr;
    reason.kind = restricted ? Kind::kNoAllowedCluster : Kind::kNoReadyCluster;
  } else if (!fits_some_cluster) {
    reason.kind = Kind::kExceedsEveryCluster;
    reason.resource = short_of_allocatable.most_short();
    reason.cluster = most_of(clusters_, job, reason.resource, allocatable_of);
    reason.needed = job.minimum().get(reason.resource);
    reason.available = clusters_[reason.cluster].total_allocatable().get(reason.resource);
  } else if (placement.closest_cluster == kNoCluster) {
    reason.kind = Kind::kInsufficientCapacity;
    reason.resource = short_of_free.most_short();
    reason.cluster = most_of(clusters_, job, reason.resource, free_of);
    reason.needed = job.minimum().get(reason.resource);
    reason.available = clusters_[reason.cluster].total_free().get(reason.resource);
  } else {
    // A hard topology's placed count is the best one domain held.
    reason.kind = job.gang.topology_hard() ? Kind::kTopologyDoesNotFit : Kind::kGangDoesNotFitNodes;
    reason.cluster = placement.closest_cluster;
    reason.replicas_placed = placement.closest_placed;
  }
  reason.replicas_needed = job.gang.min_available;
  return reason;
}

// Each cluster the job may use with what it is short of there now, so a
// user sees how far every cluster is from fitting, not only the closest.
std::string SchedulerCore::free_per_cluster(const Job& job) const {
  constexpr std::size_t kMaxListed = 8;
  std::string text;
  std::size_t listed = 0, unlisted = 0;
  for (ClusterIndex c = 0; c < clusters_.size(); ++c) {
    const ClusterState& cluster = clusters_[c];
    if (!PlacementPolicy::eligible(cluster, c, job)) continue;
    if (listed == kMaxListed) {
      ++unlisted;
      continue;
    }
    const bool is_short = !job.minimum().fits_in(cluster.total_free());
    const ResourceId short_of = short_resource(job.minimum(), cluster.total_free());
    text += (listed++ == 0 ? "" : ", ") + cluster.name() + " " +
            (is_short ? amount(short_of, cluster.total_free().get(short_of))
                      : std::string("fits by totals, not yet placed"));
  }
  if (unlisted > 0) text += " and " + std::to_string(unlisted) + " more";
  return text;
}

// Where a dispatch that is not simply running stands: its parts being
// prepared, or being stopped by a drain. Empty when it just runs.
std::string SchedulerCore::dispatch_text(const Dispatch& dispatch) const {
  std::string clusters;
  std::size_t admitted = 0, stopping = 0;
  for (const DispatchPart& part : dispatch.parts) {
    clusters += (clusters.empty() ? "" : ", ") + clusters_[part.cluster].name();
    if (part.state == PartState::kAdmitted) ++admitted;
    if (part.state == PartState::kStopping) ++stopping;
  }
  if (!dispatch.committed)
    return "preparing on " + clusters + " (" + std::to_string(admitted) + " of " +
           std::to_string(dispatch.parts.size()) + " part(s) admitted)";
  const RunHistory& history = jobs_[dispatch.job].history();
  if (stopping > 0 && history.last_action != LifecycleAction::kNone &&
      jobs_[dispatch.job].phase != JobPhase::kRunning)
    return "stopping on " + clusters + " (" + std::string(action_name(history.last_action)) +
           " after " + std::string(event_name(history.last_event)) + ")";
  if (stopping > 0) return "stopping on " + clusters + " (drained); placed again once stopped";
  return "";
}

const PendingReason& SchedulerCore::pending_reason(const Job& job) const {
  if (job.phase != JobPhase::kPending || job.shape_class == kIndividualShape) return job.reason;
  const ShapeClass& shape = pending_shapes_.shape(job.shape_class);
  return shape.skipped_pass > job.reason_pass ? shape.skipped_reason : job.reason;
}

std::string SchedulerCore::reason_text(const Job& job) const {
  const QueueNode& queue = queues_.node(job.queue);
  // Behind a strict-FIFO head is derived, not stored: no pass walks the tail.
  std::string text;
  if (const Dispatch* dispatch = find_dispatch(job.dispatch)) {
    if (std::string text = dispatch_text(*dispatch); !text.empty()) return text;
  }
  // What kept it waiting is history once it runs: a running job shows none.
  if (job.phase == JobPhase::kRunning) return "";
  if (job.phase == JobPhase::kPending && queue.spec.strategy == QueueStrategy::kStrictFifo &&
      !queue.pending_jobs.empty() && queue.pending_jobs.begin()->job != job_index(job)) {
    const Job& head = jobs_[queue.pending_jobs.begin()->job];
    text = "waiting behind the head of queue " + queue.spec.name + " (strict FIFO): " + head.name;
  } else {
    text = render_reason(job, pending_reason(job));
  }
  // Why it is back in the queue stays visible after passes replace the reason.
  const Kind kind = pending_reason(job).kind;
  const bool says_why_requeued = kind == Kind::kRejectedByCluster || kind == Kind::kClusterLost ||
                                 kind == Kind::kPreempted || kind == Kind::kDrained ||
                                 kind == Kind::kFenced;
  if (job.phase == JobPhase::kPending && job.requeues > 0 && !says_why_requeued)
    text += "; earlier " + render_reason(job, job.history().requeue_cause);
  return text;
}

std::string SchedulerCore::render_reason(const Job& job, const PendingReason& r) const {
  const std::string cluster = r.cluster == kNoCluster ? "" : clusters_[r.cluster].name();
  const QueueNode& queue = queues_.node(job.queue);
  switch (r.kind) {
    case Kind::kNone:
      return job.history().message;
    case Kind::kNotYetConsidered:
      return "waiting for the next scheduling pass";
    case Kind::kBehindQueueHead:
      return "waiting behind the head of queue " + queue.spec.name + " (strict FIFO)";
    case Kind::kNoReadyCluster:
    case Kind::kNoAllowedCluster:
      return no_eligible_cluster(clusters_, job);
    case Kind::kExceedsEveryCluster:
      return "larger than every cluster: needs " + amount(r.resource, r.needed) + " for " +
             std::to_string(r.replicas_needed) + " replicas, the largest cluster (" + cluster +
             ") has " + amount(r.resource, r.available) + " allocatable";
    case Kind::kInsufficientCapacity:
      return "not enough free capacity: needs " + amount(r.resource, r.needed) +
             "; the most free in one cluster is " + amount(r.resource, r.available) + " (" +
             cluster + "); free now per cluster: " + free_per_cluster(job);
    case Kind::kGangDoesNotFitNodes: {
      std::string shape;
      for (const TaskShape& task : job.gang.tasks) {
        if (!shape.empty()) shape += " + ";
        shape += std::to_string(task.replicas) + " x {" + task.per_replica.to_string() + "}";
      }
      std::string selectors;
      for (const TaskShape& task : job.gang.tasks)
        for (const auto& [key, value] : task.node_selector)
          selectors += (selectors.empty() ? "" : ", ") + key + "=" + value;
      return "gang does not fit on nodes: needs " + std::to_string(r.replicas_needed) +
             " replicas (" + shape + ") each on one node" +
             (selectors.empty() ? "" : " matching nodeSelector " + selectors) + "; best cluster " +
             cluster + " fits " + std::to_string(r.replicas_placed) +
             untolerated_taints_note(clusters_[r.cluster], job.gang);
    }
    case Kind::kRejectedByCluster:
      return "rejected by cluster " + cluster + ": " + job.history().message + "; requeued (" +
             std::to_string(job.requeues) + ")";
    case Kind::kClusterLost:
      return "cluster " + cluster + " was lost; requeued (" + std::to_string(job.requeues) + ")";
    case Kind::kDrained:
      return "cluster " + cluster + " was drained; requeued (" + std::to_string(job.requeues) + ")";
    case Kind::kFenced:
      return "its run on cluster " + cluster +
             " was stopped by the agent (fenced: cut off from the hub); requeued (" +
             std::to_string(job.requeues) + ")";
    case Kind::kSplitDoesNotFit:
      return "gang does not fit even split across clusters: needs " +
             std::to_string(r.replicas_needed) + " replicas, " + std::to_string(r.needed) +
             " cluster(s) together fit " + std::to_string(r.replicas_placed) +
             "; free now per cluster: " + free_per_cluster(job);
    case Kind::kQueueAtCapability:
      return "queue " + queues_.node(r.queue).spec.name +
             " at capability: " + ResourceNames::name(r.resource) + " would reach " +
             format_quantity(ResourceNames::name(r.resource), r.needed) + " of " +
             format_quantity(ResourceNames::name(r.resource), r.available);
    case Kind::kGuaranteedToOthers:
      return "the free capacity is guaranteed to other queues: needs " +
             amount(r.resource, r.needed) + ", " + amount(r.resource, r.available) +
             " usable by queue " + queue.spec.name;
    case Kind::kTopologyDoesNotFit:
      return topology_misfit_text(job.gang, placer_.topology_tiers(), cluster, r.replicas_needed,
                                  r.replicas_placed);
    case Kind::kRestartBackoff:
      return "restarted by " + std::string(action_name(job.history().last_action)) + " after " +
             std::string(event_name(job.history().last_event)) + " (retry " +
             std::to_string(job.history().retries) +
             "); not placed before its restart backoff ends";
    case Kind::kPreempted:
      return "preempted on cluster " + cluster + " to make room for job " + jobs_[r.by_job].name +
             "; requeued (" + std::to_string(job.requeues) + ", preempted " +
             std::to_string(job.preemptions) + " times)";
  }
  return "";
}

}  // namespace gantry::hub
