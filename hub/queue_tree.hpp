// The hierarchy of queues under an implicit `root`, what each may use
// (capability), deserves (deserved, by weight where unset) and is promised
// (guarantee), what each holds now, and the weighted dominant-resource order in
// which a scheduling pass serves them (hierarchical DRF, as Mesos' sorter).
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/job.hpp"
#include "hub/queue_spec.hpp"
#include "hub/water_fill.hpp"

namespace gantry::hub {

inline constexpr QueueIndex kRootQueue = 0;
inline constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max() / 4;

struct PendingKey {
  std::int32_t negative_priority;
  std::uint64_t sequence;
  JobId job;
  auto operator<=>(const PendingKey&) const = default;
};

// Running (or dispatched) jobs of a queue in eviction order: lowest priority
// first, newest first.
struct RunningKey {
  std::int32_t priority;
  std::int64_t negative_sequence;
  DispatchId dispatch;
  auto operator<=>(const RunningKey&) const = default;
};

struct QueueNode {
  QueueSpec spec;
  QueueIndex parent = kRootQueue;
  std::vector<QueueIndex> children;
  bool deleted = false;
  // Derived from the specs and the pool's capacity by QueueTree::refresh().
  ResourceVector capability;  // kUnbounded where nothing bounds it
  ResourceVector deserved;
  ResourceVector guarantee;
  // Bookkeeping kept current by the scheduler through QueueTree's operations.
  ResourceVector allocated;  // this queue and its descendants
  ResourceVector pending;    // requests of its own pending jobs
  // allocated + what it and its descendants wait for, as of refresh(): a
  // weight-based deserved share never exceeds it (Volcano's proportion plugin).
  ResourceVector demand;
  std::set<PendingKey> pending_jobs;
  std::set<RunningKey> running;  // own dispatched or running jobs
  // Sum over children of max(0, guarantee - allocated): what they are promised
  // but do not use, which no one else may take.
  ResourceVector children_unused_guarantee;
  double share = 0.0;  // weighted dominant share, refreshed by the pass
};

// Where a pending job sits in its leaf's pending_jobs.
using PendingPosition = std::set<PendingKey>::const_iterator;

class QueueTree {
 public:
  QueueTree();

  // Creates or updates a queue. Throws FieldError naming the field when the
  // spec is invalid on its own or against its parent, siblings or children.
  // `root` may be applied too: its capability caps the whole pool, its
  // guarantee and deserved bound what its children may be given.
  QueueIndex apply(const QueueSpec& spec);
  // Throws FieldError when the queue is root, default, has children or jobs.
  void remove(std::string_view name);
  std::optional<QueueIndex> find(std::string_view name) const;
  std::size_t size() const { return nodes_.size(); }
  const QueueNode& node(QueueIndex index) const { return nodes_[index]; }
  bool is_leaf(QueueIndex index) const { return nodes_[index].children.empty(); }

  // Recomputes capability / deserved of every queue for a pool of `capacity`
  // and the queues' current demand: O(queues x resources x water-fill rounds).
  void refresh(const ResourceVector& capacity);
  const ResourceVector& capacity() const { return capacity_; }

  void set_strategy(QueueIndex queue, QueueStrategy strategy);

  // A job of `leaf` waits (enqueue) or stops waiting (dequeue; false, changing
  // nothing, when it was not waiting); `request` is what it asks in total.
  void enqueue(QueueIndex leaf, const PendingKey& job, const ResourceVector& request);
  bool dequeue(QueueIndex leaf, const PendingKey& job, const ResourceVector& request);
  // The same for a job whose entry the caller holds: no search.
  void dequeue_at(QueueIndex leaf, PendingPosition at, const ResourceVector& request);
  // A dispatch of `leaf` starts / stops holding `amount`: listed among the
  // queue's running jobs and charged to it and its ancestors.
  void add_running(QueueIndex leaf, const RunningKey& dispatch, const ResourceVector& amount);
  void remove_running(QueueIndex leaf, const RunningKey& dispatch, const ResourceVector& amount);

  // Adds (or with negative sign removes) what a job of `leaf` holds.
  void add_allocation(QueueIndex leaf, const ResourceVector& amount);
  void remove_allocation(QueueIndex leaf, const ResourceVector& amount);

  // False (and the queue and resource) when `amount` more would take `leaf`
  // or one of its ancestors past its capability.
  bool within_capability(QueueIndex leaf, const ResourceVector& amount, QueueIndex& capped,
                         ResourceId& resource) const;
  // Guarantees of queues outside `leaf`'s path that they do not use now: no
  // job of `leaf` may start on them.
  ResourceVector unused_guarantees_of_others(QueueIndex leaf) const;
  // allocated + amount <= deserved on every resource `amount` uses.
  bool within_deserved(QueueIndex leaf, const ResourceVector& amount) const;
  // allocated > deserved on some resource.
  bool over_deserved(QueueIndex index) const;

  double weighted_share(QueueIndex index) const;
  // Stores weighted_share() as the node's share; returns the share it replaces.
  double refresh_share(QueueIndex index);

 private:
  void validate(const QueueSpec& spec, std::optional<QueueIndex> existing) const;
  void validate_against_parent(const QueueSpec& spec) const;
  void validate_against_children(const QueueSpec& spec, QueueIndex existing) const;
  void apply_root(const QueueSpec& spec);
  ResourceVector refresh_demand(QueueIndex index);
  void refresh_node(QueueIndex index);
  void share_deserved(const QueueNode& parent, ResourceId resource);
  void adjust_unused_guarantee(QueueIndex index, const ResourceVector& before);
  static ResourceVector unused_guarantee(const QueueNode& node);

  std::vector<QueueNode> nodes_;
  std::unordered_map<std::string, QueueIndex> by_name_;
  ResourceVector capacity_;
  std::vector<WaterFillShare> fill_;  // scratch for share_deserved, reused every pass
};

}  // namespace gantry::hub
