// The scheduling core: clusters, queues, jobs and the pass that decides which
// pending job goes to which cluster. Pure and deterministic: no threads, no
// sockets, no clock reads; every entry point takes `now`. The hub's scheduler
// actor, the simulator and the benchmarks all drive this same class.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/placement.hpp"

namespace gantry::hub {

enum class QueueStrategy : std::uint8_t {
  kStrictFifo,      // the head job blocks its queue until it fits
  kBestEffortFifo,  // jobs that do not fit now are skipped
};

struct Dispatch {
  DispatchId id = 0;
  JobId job = 0;
  ClusterIndex cluster = kNoCluster;
  std::vector<NodeAssignment> assignment;  // resources reserved on nodes
  bool reserved = true;  // false once the agent's report accounts for it
  std::vector<std::int32_t> task_replicas;  // per GangShape task
};

struct Decision {
  enum class Kind : std::uint8_t { kDispatch };
  Kind kind = Kind::kDispatch;
  JobId job = 0;
  DispatchId dispatch = 0;
  ClusterIndex cluster = kNoCluster;
};

struct SchedulerOptions {
  QueueStrategy default_strategy = QueueStrategy::kBestEffortFifo;
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
  // `accounted` are counted in the report's `allocated`, so their hub-side
  // reservation is dropped; others stay reserved on top of the report.
  void report_usage(ClusterIndex cluster, const std::vector<NodeSpec>& nodes,
                    const std::vector<DispatchId>& accounted);
  // Going not-ready requeues every job dispatched to or running on the cluster;
  // returns those jobs.
  std::vector<JobId> set_cluster_ready(ClusterIndex cluster, bool ready, TimeMs now);

  // ---- queues
  QueueIndex ensure_queue(std::string_view name);
  void set_queue_strategy(QueueIndex queue, QueueStrategy strategy);
  std::size_t queue_count() const { return queues_.size(); }
  const std::string& queue_name(QueueIndex queue) const { return queues_[queue].name; }
  std::size_t queue_pending(QueueIndex queue) const { return queues_[queue].pending.size(); }

  // ---- jobs
  // Throws FieldError ("metadata.name") when the name is taken or empty, and
  // ("spec.minAvailable") when the gang is malformed.
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
  // Cancels a job. Returns the dispatch the agent must stop, if any. Throws
  // std::out_of_range when no job has that name.
  std::optional<DispatchId> cancel(std::string_view job, TimeMs now);

  // ---- queries
  std::size_t job_count() const { return jobs_.size(); }
  const Job& job(JobId id) const { return jobs_[id]; }
  std::optional<JobId> find_job(std::string_view name) const;
  const Dispatch* find_dispatch(DispatchId id) const;
  std::string reason_text(const Job& job) const;
  // Resources held by dispatched and running jobs, per cluster.
  ResourceVector allocated_on(ClusterIndex cluster) const;
  std::size_t pending_count() const { return pending_total_; }

 private:
  struct PendingKey {
    std::int32_t negative_priority;
    std::uint64_t sequence;
    JobId job;
    auto operator<=>(const PendingKey&) const = default;
  };
  struct Queue {
    std::string name;
    QueueStrategy strategy = QueueStrategy::kBestEffortFifo;
    std::set<PendingKey> pending;
  };

  void enqueue(JobId id);
  void dequeue(JobId id);
  bool try_place(JobId id, TimeMs now);
  void record_failure(Job& job);
  void release_dispatch(DispatchId id);
  void requeue(JobId id, PendingReason reason, TimeMs now);
  bool cluster_allowed(const Job& job, ClusterIndex cluster) const;

  SchedulerOptions options_;
  std::vector<ClusterState> clusters_;
  std::vector<Queue> queues_;
  std::unordered_map<std::string, QueueIndex> queue_by_name_;
  std::vector<Job> jobs_;
  std::unordered_map<std::string, JobId> job_by_name_;
  std::unordered_map<DispatchId, Dispatch> dispatches_;
  std::size_t pending_total_ = 0;
  std::uint64_t next_sequence_ = 1;
  DispatchId next_dispatch_ = 1;
  GangPlacer placer_;
  std::vector<NodeAssignment> assignment_scratch_;
  std::vector<Decision> decisions_;
  std::vector<ClusterIndex> candidates_;
  // The cluster that came closest in the last failed try_place (for reasons).
  ClusterIndex closest_cluster_ = kNoCluster;
  std::int32_t closest_placed_ = -1;
};

}  // namespace gantry::hub
