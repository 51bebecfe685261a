// The scheduling core: clusters, queues, jobs and the pass that decides which
// pending job goes to which cluster, and which running jobs must make room.
// Pure and deterministic: no threads, no sockets, no clock reads; every entry
// point takes `now`. The hub's scheduler actor, the simulator and the
// benchmarks all drive this same class.
//
// A pass (schedule()):
//  1. jobs pending longer than their SLA waiting time are tried first, oldest
//     deadline first; one that still does not fit gets nodes held for it,
//     which no other job may take (starvation holds);
//  2. then queues are served in hierarchical weighted-DRF order (among
//     siblings: higher spec.priority first, then lower allocated dominant
//     share / weight), one job at a time, each queue's jobs by priority then
//     submission; a strict-FIFO queue stops at its first job that cannot run,
//     a best-effort queue skips it;
//  3. a job passes its queues' capabilities and the guarantees other queues
//     do not use, then needs a node-level gang fit in one allowed cluster
//     (which clusters, in which order, on which nodes: PlacementPolicy);
//  4. failing that, once per queue per pass, whole running gangs are evicted
//     when that makes it fit: from reclaimable queues above their deserved
//     share when its own queue stays within deserved (reclaim), or of lower
//     priority in its own queue (preemption); lowest priority, newest first.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/pass_state.hpp"
#include "hub/placement.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_tree.hpp"

namespace gantry::hub {

struct Dispatch {
  DispatchId id = 0;
  JobId job = 0;
  ClusterIndex cluster = kNoCluster;
  std::vector<NodeAssignment> assignment;  // resources held on nodes
  ResourceVector held;    // sum of the assignment
  // What its queue is charged: the placed replicas' requests. Differs from
  // `held` only by GPU products the job did not ask for.
  ResourceVector amount;
  // True while the agent's usage report does not yet account for it: the hub
  // then holds its assignment on the nodes itself.
  bool awaiting_report = true;
  std::vector<std::int32_t> task_replicas;  // per GangShape task
};

struct Decision {
  enum class Kind : std::uint8_t {
    kDispatch,  // send the job to the cluster
    kEvict,     // stop the dispatch on the cluster; the job is already requeued
  };
  Kind kind = Kind::kDispatch;
  JobId job = 0;
  DispatchId dispatch = 0;
  ClusterIndex cluster = kNoCluster;
};

struct SchedulerOptions {
  QueueStrategy default_strategy = QueueStrategy::kBestEffortFifo;
  bool reclaim = true;     // evict borrowers for queues below their deserved share
  bool preemption = true;  // evict lower-priority jobs of the same queue
  // Dispatch ids start here; a hub puts its epoch in the high bits so an id
  // never names two dispatches across hub restarts.
  DispatchId first_dispatch_id = 1;
  // Eviction searches per pass, in queue order: each may look at every
  // running gang, so they are bounded to keep a pass O(pending + running).
  std::uint32_t eviction_searches_per_pass = 16;
  // Which clusters a job may use, in which order, on which nodes.
  PlacementPolicy placement;
};

class SchedulerCore {
 public:
  explicit SchedulerCore(SchedulerOptions options = {});

  // ---- clusters
  ClusterIndex add_cluster(std::string_view name, Labels labels = {});
  std::optional<ClusterIndex> find_cluster(std::string_view name) const;
  std::size_t cluster_count() const { return clusters_.size(); }
  const ClusterState& cluster(ClusterIndex index) const { return clusters_[index]; }
  // A usage report replaces the cluster's nodes. Dispatches listed in
  // `accounted` are counted in the report's `allocated`, so the hub stops
  // holding their nodes; others stay held on top of the report.
  void report_usage(ClusterIndex cluster, const std::vector<NodeSpec>& nodes,
                    const std::vector<DispatchId>& accounted);
  // Going not-ready requeues every job dispatched to or running on the cluster;
  // returns those jobs.
  std::vector<JobId> set_cluster_ready(ClusterIndex cluster, bool ready, TimeMs now);
  // Sum of the ready clusters' allocatable: the pool queues share.
  ResourceVector pool_capacity() const;

  // ---- queues
  // Creates or updates a queue; throws FieldError naming the field.
  QueueIndex apply_queue(const QueueSpec& spec);
  // Throws FieldError when the queue cannot be deleted.
  void delete_queue(std::string_view name);
  // Creates a leaf under root with defaults if missing.
  QueueIndex ensure_queue(std::string_view name);
  std::optional<QueueIndex> find_queue(std::string_view name) const { return queues_.find(name); }
  void set_queue_strategy(QueueIndex queue, QueueStrategy strategy);
  const QueueTree& queues() const { return queues_; }
  std::size_t queue_count() const { return queues_.size(); }
  const std::string& queue_name(QueueIndex queue) const { return queues_.node(queue).spec.name; }
  std::size_t queue_pending(QueueIndex queue) const { return queues_.node(queue).pending_jobs.size(); }
  // Refreshes deserved shares for the current pool (done by every pass too).
  void refresh_queues();

  // ---- jobs
  // Throws FieldError: "metadata.name" when the name is taken or empty,
  // "spec.minAvailable" when the gang is malformed, "spec.queue" when the
  // queue does not exist, is closed or is not a leaf.
  JobId submit(JobRequest request, TimeMs now);
  // One scheduling pass. The returned decisions are valid until the next call.
  const std::vector<Decision>& schedule(TimeMs now);
  // The agent admitted the dispatch: the job runs.
  void admitted(DispatchId dispatch, TimeMs now);
  // The agent refused the dispatch: the job goes back to its queue.
  void rejected(DispatchId dispatch, std::string_view reason, TimeMs now);
  // Task counts reported by the agent while the job runs.
  void update_tasks(DispatchId dispatch, std::vector<protocol::TaskStatus> tasks);
  // The job ended on its cluster (kCompleted or kFailed); frees its resources.
  void finished(DispatchId dispatch, JobPhase phase, std::string_view message, TimeMs now);
  // ---- after a hub restart (recovery.cpp): jobs come back from the store as
  // pending, while member clusters may still run them or have finished them.
  // True when `dispatch` was handed out by an earlier hub (ids below this
  // hub's first_dispatch_id).
  bool from_earlier_hub(DispatchId dispatch) const { return dispatch < options_.first_dispatch_id; }
  // Takes the pending job back as running on `cluster` under the agent's
  // `dispatch` id, its replicas holding their requests on the named nodes
  // (already counted in the agent's usage report). False, changing nothing,
  // when the job is not pending, the id is in use, a task or node is unknown,
  // or fewer than minAvailable replicas are listed.
  bool adopt(JobId id, ClusterIndex cluster, DispatchId dispatch,
             const std::vector<protocol::PlacedReplica>& replicas, TimeMs now);
  // The pending job ended on `cluster` while the hub was away (kCompleted or
  // kFailed): it leaves its queue with that end.
  void ended_while_away(JobId id, ClusterIndex cluster, JobPhase phase, std::string_view message,
                        TimeMs now);

  // Cancels a job. Returns the dispatch the agent must stop, if any. Throws,
  // with the text to show the user, std::out_of_range when no job has that
  // name and std::invalid_argument when the job has already ended.
  std::optional<DispatchId> cancel(std::string_view job, TimeMs now);

  // ---- queries
  std::size_t job_count() const { return jobs_.size(); }
  const Job& job(JobId id) const { return jobs_[id]; }
  std::optional<JobId> find_job(std::string_view name) const;
  const Dispatch* find_dispatch(DispatchId id) const;
  // The dispatches (sent or running) on one cluster, lowest priority and
  // newest first: O(its dispatches) to walk, not O(every job).
  const std::set<RunningKey>& dispatches_on(ClusterIndex cluster) const { return running_on_[cluster]; }
  std::string reason_text(const Job& job) const;
  // Resources held on the cluster, by Gantry jobs and anything else its agent reports.
  ResourceVector allocated_on(ClusterIndex cluster) const;
  std::size_t pending_count() const { return pending_total_; }
  // Placement decisions made so far: one per pending job looked at in a pass
  // (a job skipped because a job no larger already failed counts too).
  std::uint64_t placement_attempts() const { return placement_attempts_; }

 private:
  struct SlaKey {
    TimeMs deadline;
    std::uint64_t sequence;
    JobId job;
    auto operator<=>(const SlaKey&) const = default;
  };
  struct EvictionPlan {
    ClusterIndex cluster = kNoCluster;
    std::vector<DispatchId> victims;
  };

  // job bookkeeping (scheduler.cpp)
  void enqueue(JobId id);
  void dequeue(JobId id);
  void release_dispatch(DispatchId id);
  void requeue(JobId id, PendingReason reason, TimeMs now);
  void commit_dispatch(JobId id, const Placement& placement);
  const Dispatch& install_dispatch(JobId id, ClusterIndex cluster, DispatchId dispatch,
                                   std::span<const NodeAssignment> assignment, bool awaiting_report);
  // the pass (scheduler_pass.cpp)
  void begin_pass(TimeMs now);
  void activate_queues();
  void activate(QueueIndex leaf);
  void deactivate(QueueIndex leaf);
  void reposition(QueueIndex leaf);
  QueueIndex pick_queue() const;
  void serve_queues(TimeMs now);
  bool attempt(JobId id, TimeMs now);
  std::optional<PendingReason> queue_limits_block(const Job& job) const;
  bool place(JobId id);
  Placement try_place(JobId id);
  std::optional<PendingReason> known_failure(const Job& job) const;
  void remember_failure(const Job& job);
  // eviction (preemption.cpp)
  bool make_room(JobId id, TimeMs now);
  bool may_evict_for(const Job& job, const Dispatch& dispatch, const ResourceVector& victim_queue_allocated,
                     bool reclaim) const;
  EvictionPlan plan_eviction(JobId id, ClusterIndex cluster, bool reclaim);
  void keep_unneeded_victims(JobId id, ClusterState& cluster, EvictionPlan& plan);
  void evict(DispatchId victim, JobId for_job, TimeMs now);
  // starvation (starvation.cpp)
  void serve_starving(TimeMs now);
  bool every_allowed_node_held(const Job& job) const;
  void hold_nodes_for(JobId id);
  void hold_nodes(JobId id, ClusterIndex cluster);
  // reasons (reason.cpp)
  PendingReason why_unplaced(const Job& job, const Placement& placement) const;
  std::string render_reason(const Job& job, const PendingReason& reason) const;
  std::string free_per_cluster(const Job& job) const;
  const PlacementPolicy& policy() const { return placer_.policy(); }
  JobId job_index(const Job& job) const { return static_cast<JobId>(&job - jobs_.data()); }

  SchedulerOptions options_;
  std::vector<ClusterState> clusters_;
  QueueTree queues_;
  std::vector<Job> jobs_;
  std::unordered_map<std::string, JobId> job_by_name_;
  std::unordered_map<DispatchId, Dispatch> dispatches_;
  std::set<SlaKey> sla_watch_;  // pending jobs with an SLA waiting time
  std::size_t pending_total_ = 0;
  std::uint64_t next_sequence_ = 1;
  DispatchId next_dispatch_ = 1;
  GangPlacer placer_;  // holds options_.placement's copy that the pass uses
  PassState pass_;
  std::vector<Decision> decisions_;
  std::uint64_t placement_attempts_ = 0;
  // Running gangs per cluster in eviction order (lowest priority, newest first).
  std::vector<std::set<RunningKey>> running_on_;
};

}  // namespace gantry::hub
