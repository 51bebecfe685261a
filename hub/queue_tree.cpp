#include "hub/queue_tree.hpp"

#include <algorithm>

#include "hub/field_error.hpp"
#include "hub/quantity.hpp"

namespace gantry::hub {

namespace {

std::string quantity_text(ResourceId id, std::int64_t milli) {
  return format_quantity(ResourceNames::name(id), milli);
}

std::string field_of(const char* bound, ResourceId id) {
  const std::string base = std::string("spec.") + bound;
  return (std::string(bound) == "guarantee" ? base + ".resource." : base + ".") +
         ResourceNames::name(id);
}

// Every set resource of `lower` must be <= the same resource of `upper` when set.
void require_ordered(const ResourceBound& lower, const char* lower_name, const ResourceBound& upper,
                     const char* upper_name) {
  for (ResourceId r = 0; r < kMaxResources; ++r) {
    if (!lower.has(r) || !upper.has(r) || lower.value.get(r) <= upper.value.get(r)) continue;
    throw FieldError(field_of(lower_name, r), quantity_text(r, lower.value.get(r)),
                     std::string("must not exceed spec.") + upper_name + "." +
                         ResourceNames::name(r) + " (" + quantity_text(r, upper.value.get(r)) +
                         ")");
  }
}

}  // namespace

ResourceBound ResourceBound::from_list(const protocol::ResourceList& list) {
  ResourceBound bound;
  for (const auto& [name, milli] : list) bound.set(ResourceNames::intern(name), milli);
  return bound;
}

QueueTree::QueueTree() {
  QueueNode root;
  root.spec.name = "root";
  root.spec.parent = "";
  nodes_.push_back(root);
  by_name_.emplace("root", kRootQueue);
  QueueSpec default_queue;
  default_queue.name = "default";
  apply(default_queue);
}

std::optional<QueueIndex> QueueTree::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end() || nodes_[it->second].deleted) return std::nullopt;
  return it->second;
}

QueueIndex QueueTree::apply(const QueueSpec& spec) {
  if (spec.name == "root") {
    apply_root(spec);
    return kRootQueue;
  }
  const std::optional<QueueIndex> existing = find(spec.name);
  validate(spec, existing);
  const QueueIndex parent = *find(spec.parent.empty() ? "root" : spec.parent);
  if (existing) {
    QueueNode& node = nodes_[*existing];
    if (node.parent != parent) {  // validate() allowed the move: the queue is empty
      auto& old_siblings = nodes_[node.parent].children;
      old_siblings.erase(std::find(old_siblings.begin(), old_siblings.end(), *existing));
      nodes_[parent].children.push_back(*existing);
      node.parent = parent;
    }
    node.spec = spec;
    refresh(capacity_);
    return *existing;
  }
  QueueIndex index;
  auto revived = by_name_.find(spec.name);
  if (revived != by_name_.end()) {  // a deleted queue's slot is reused
    index = revived->second;
    nodes_[index] = QueueNode{};
  } else {
    index = static_cast<QueueIndex>(nodes_.size());
    nodes_.emplace_back();
    by_name_.emplace(spec.name, index);
  }
  nodes_[index].spec = spec;
  nodes_[index].parent = parent;
  nodes_[parent].children.push_back(index);
  refresh(capacity_);
  return index;
}

// The pool's own bounds. Root has no parent and no share of anything: weight,
// priority and the rest stay as they are.
void QueueTree::apply_root(const QueueSpec& spec) {
  if (!spec.parent.empty() && spec.parent != "root")
    throw FieldError("spec.parent", spec.parent, "root is the top of the hierarchy");
  require_ordered(spec.guarantee, "guarantee", spec.deserved, "deserved");
  require_ordered(spec.deserved, "deserved", spec.capability, "capability");
  require_ordered(spec.guarantee, "guarantee", spec.capability, "capability");
  validate_against_children(spec, kRootQueue);
  QueueSpec& root = nodes_[kRootQueue].spec;
  root.capability = spec.capability;
  root.deserved = spec.deserved;
  root.guarantee = spec.guarantee;
  root.extend_clusters = spec.extend_clusters;
  root.affinity = spec.affinity;
  refresh(capacity_);
}

void QueueTree::validate(const QueueSpec& spec, std::optional<QueueIndex> existing) const {
  if (spec.name.empty()) throw FieldError("metadata.name", "", "a queue needs a name");
  if (spec.name == "root")
    throw FieldError("metadata.name", spec.name, "root is the implicit top of the hierarchy");
  if (spec.weight < 1 || spec.weight > 65535)
    throw FieldError("spec.weight", std::to_string(spec.weight), "must be between 1 and 65535");
  if (spec.priority < 0)
    throw FieldError("spec.priority", std::to_string(spec.priority), "must not be negative");
  require_ordered(spec.guarantee, "guarantee", spec.deserved, "deserved");
  require_ordered(spec.deserved, "deserved", spec.capability, "capability");
  require_ordered(spec.guarantee, "guarantee", spec.capability, "capability");
  const std::string parent_name = spec.parent.empty() ? "root" : spec.parent;
  const std::optional<QueueIndex> parent = find(parent_name);
  if (!parent) throw FieldError("spec.parent", parent_name, "no such queue");
  const QueueNode& p = nodes_[*parent];
  if (*parent != kRootQueue && (!p.pending_jobs.empty() || !p.running.empty()))
    throw FieldError("spec.parent", parent_name,
                     "that queue holds jobs; only leaf queues hold jobs");
  if (existing) {
    for (QueueIndex a = *parent;; a = nodes_[a].parent) {
      if (a == *existing) throw FieldError("spec.parent", parent_name, "would make a cycle");
      if (a == kRootQueue) break;
    }
    if (nodes_[*existing].parent != *parent && !nodes_[*existing].allocated.is_zero())
      throw FieldError("spec.parent", parent_name, "cannot move a queue that holds resources");
    if (nodes_[*existing].parent != *parent && !nodes_[*existing].children.empty())
      throw FieldError("spec.parent", parent_name, "cannot move a queue that has child queues");
    validate_against_children(spec, *existing);
  }
  validate_against_parent(spec);
}

// The children of one parent may not be promised, or deserve, more than it.
void QueueTree::validate_against_parent(const QueueSpec& spec) const {
  const QueueIndex parent = *find(spec.parent.empty() ? "root" : spec.parent);
  const QueueSpec& ps = nodes_[parent].spec;
  require_ordered(spec.capability, "capability", ps.capability, "capability of the parent");
  for (ResourceId r = 0; r < kMaxResources; ++r) {
    std::int64_t guaranteed = spec.guarantee.has(r) ? spec.guarantee.value.get(r) : 0;
    std::int64_t deserved = spec.deserved.has(r) ? spec.deserved.value.get(r) : 0;
    for (QueueIndex sibling : nodes_[parent].children) {
      const QueueSpec& ss = nodes_[sibling].spec;
      if (ss.name == spec.name) continue;
      if (ss.guarantee.has(r)) guaranteed += ss.guarantee.value.get(r);
      if (ss.deserved.has(r)) deserved += ss.deserved.value.get(r);
    }
    if (ps.guarantee.has(r) && spec.guarantee.has(r) && guaranteed > ps.guarantee.value.get(r))
      throw FieldError(field_of("guarantee", r), quantity_text(r, spec.guarantee.value.get(r)),
                       "the guarantees of " + ps.name + "'s children would total " +
                           quantity_text(r, guaranteed) + ", more than its own " +
                           quantity_text(r, ps.guarantee.value.get(r)));
    if (ps.deserved.has(r) && spec.deserved.has(r) && deserved > ps.deserved.value.get(r))
      throw FieldError(field_of("deserved", r), quantity_text(r, spec.deserved.value.get(r)),
                       "the deserved shares of " + ps.name + "'s children would total " +
                           quantity_text(r, deserved) + ", more than its own " +
                           quantity_text(r, ps.deserved.value.get(r)));
  }
}

void QueueTree::validate_against_children(const QueueSpec& spec, QueueIndex existing) const {
  for (ResourceId r = 0; r < kMaxResources; ++r) {
    std::int64_t guaranteed = 0, deserved = 0;
    for (QueueIndex child : nodes_[existing].children) {
      const QueueSpec& cs = nodes_[child].spec;
      if (cs.guarantee.has(r)) guaranteed += cs.guarantee.value.get(r);
      if (cs.deserved.has(r)) deserved += cs.deserved.value.get(r);
      if (spec.capability.has(r) && cs.capability.has(r) &&
          cs.capability.value.get(r) > spec.capability.value.get(r))
        throw FieldError(field_of("capability", r), quantity_text(r, spec.capability.value.get(r)),
                         "is below the capability of child queue " + cs.name);
    }
    if (spec.guarantee.has(r) && guaranteed > spec.guarantee.value.get(r))
      throw FieldError(field_of("guarantee", r), quantity_text(r, spec.guarantee.value.get(r)),
                       "is below the sum of the child queues' guarantees (" +
                           quantity_text(r, guaranteed) + ")");
    if (spec.deserved.has(r) && deserved > spec.deserved.value.get(r))
      throw FieldError(
          field_of("deserved", r), quantity_text(r, spec.deserved.value.get(r)),
          "is below the sum of the child queues' deserved (" + quantity_text(r, deserved) + ")");
  }
}

void QueueTree::remove(std::string_view name) {
  const std::optional<QueueIndex> index = find(name);
  if (!index) throw FieldError("metadata.name", std::string(name), "no such queue");
  if (*index == kRootQueue || name == "default")
    throw FieldError("metadata.name", std::string(name),
                     "the root and default queues cannot be deleted");
  QueueNode& node = nodes_[*index];
  if (!node.children.empty())
    throw FieldError("metadata.name", std::string(name), "the queue has child queues");
  if (!node.pending_jobs.empty() || !node.running.empty())
    throw FieldError("metadata.name", std::string(name), "the queue still holds jobs");
  auto& siblings = nodes_[node.parent].children;
  siblings.erase(std::find(siblings.begin(), siblings.end(), *index));
  node.deleted = true;
  refresh(capacity_);
}

// ------------------------------------------------------------------ derived values

void QueueTree::refresh(const ResourceVector& capacity) {
  capacity_ = capacity;
  QueueNode& root = nodes_[kRootQueue];
  // Only explicit capabilities bound a queue: the pool itself is not reported
  // as a queue limit, placement reports it with per-cluster detail.
  for (ResourceId r = 0; r < kMaxResources; ++r) {
    const bool capped = root.spec.capability.has(r);
    root.capability.set(r, capped ? root.spec.capability.value.get(r) : kUnbounded);
    std::int64_t deserved = capacity.get(r);
    if (root.spec.deserved.has(r)) deserved = std::min(deserved, root.spec.deserved.value.get(r));
    root.deserved.set(r, std::min(deserved, root.capability.get(r)));
    root.guarantee.set(r, root.spec.guarantee.has(r) ? root.spec.guarantee.value.get(r) : 0);
  }
  refresh_demand(kRootQueue);
  refresh_node(kRootQueue);
}

// Returns what `index` and its descendants wait for; sets each one's demand.
ResourceVector QueueTree::refresh_demand(QueueIndex index) {
  ResourceVector waiting = nodes_[index].pending;
  for (QueueIndex child : nodes_[index].children) waiting += refresh_demand(child);
  nodes_[index].demand = nodes_[index].allocated + waiting;
  return waiting;
}

void QueueTree::refresh_node(QueueIndex index) {
  const QueueNode& parent = nodes_[index];
  for (ResourceId r = 0; r < kMaxResources; ++r) share_deserved(parent, r);
  for (QueueIndex child : parent.children) refresh_node(child);
  // Guarantees may have changed: recompute what children leave unused.
  QueueNode& node = nodes_[index];
  node.children_unused_guarantee = {};
  for (QueueIndex child : node.children)
    node.children_unused_guarantee += unused_guarantee(nodes_[child]);
}

// Deserved where unset: the queue's own guarantee, plus its part of what the
// parent deserves after siblings' explicit deserved shares and the
// weight-based siblings' guarantees are set aside, water-filled by demand as
// Volcano's proportion plugin: by weight, none past its demand or capability,
// what one does not need shared again among the others. What no one demands
// is then spread by weight up to the capabilities, so an idle pool still
// shows each queue its weight's part, and a queue that demands nothing never
// keeps a share from queues that do. Counting guarantees first keeps the
// shares summing to the parent's, so a queue that holds a guaranteed part of
// the pool is over its share and reclaimable.
void QueueTree::share_deserved(const QueueNode& parent, ResourceId r) {
  fill_.clear();  // capacity kept: no allocation once the tree has grown
  std::int64_t set_aside = 0;
  for (QueueIndex child : parent.children) {
    QueueNode& node = nodes_[child];
    const QueueSpec& cs = node.spec;
    const std::int64_t capability =
        cs.capability.has(r) ? std::min(cs.capability.value.get(r), parent.capability.get(r))
                             : parent.capability.get(r);
    const std::int64_t guarantee = cs.guarantee.has(r) ? cs.guarantee.value.get(r) : 0;
    node.capability.set(r, capability);
    node.guarantee.set(r, guarantee);
    if (cs.deserved.has(r)) {
      set_aside += cs.deserved.value.get(r);
      node.deserved.set(r, std::max(guarantee, std::min(cs.deserved.value.get(r), capability)));
      continue;
    }
    set_aside += guarantee;
    const std::int64_t headroom = std::max<std::int64_t>(0, capability - guarantee);
    fill_.push_back({cs.weight,
                     std::min(headroom, std::max<std::int64_t>(0, node.demand.get(r) - guarantee)),
                     0});
  }
  if (fill_.empty()) return;
  const std::int64_t left = std::max<std::int64_t>(0, parent.deserved.get(r) - set_aside);
  const std::int64_t unwanted = water_fill(fill_, left);
  std::size_t i = 0;
  for (QueueIndex child : parent.children) {
    if (nodes_[child].spec.deserved.has(r)) continue;
    const QueueNode& node = nodes_[child];
    fill_[i++].limit = std::max<std::int64_t>(0, node.capability.get(r) - node.guarantee.get(r));
  }
  water_fill(fill_, unwanted);
  i = 0;
  for (QueueIndex child : parent.children) {
    QueueNode& node = nodes_[child];
    if (node.spec.deserved.has(r)) continue;
    node.deserved.set(r, node.guarantee.get(r) + fill_[i++].share);
  }
}

ResourceVector QueueTree::unused_guarantee(const QueueNode& node) {
  ResourceVector unused = node.guarantee - node.allocated;
  return unused.max_with(ResourceVector{});
}

// ------------------------------------------------------------------ allocation

void QueueTree::add_allocation(QueueIndex leaf, const ResourceVector& amount) {
  for (QueueIndex q = leaf; q != kRootQueue; q = nodes_[q].parent) {
    const ResourceVector before = unused_guarantee(nodes_[q]);
    nodes_[q].allocated += amount;
    adjust_unused_guarantee(q, before);
  }
  nodes_[kRootQueue].allocated += amount;
}

void QueueTree::remove_allocation(QueueIndex leaf, const ResourceVector& amount) {
  for (QueueIndex q = leaf; q != kRootQueue; q = nodes_[q].parent) {
    const ResourceVector before = unused_guarantee(nodes_[q]);
    nodes_[q].allocated -= amount;
    adjust_unused_guarantee(q, before);
  }
  nodes_[kRootQueue].allocated -= amount;
}

void QueueTree::adjust_unused_guarantee(QueueIndex index, const ResourceVector& before) {
  QueueNode& parent = nodes_[nodes_[index].parent];
  parent.children_unused_guarantee -= before;
  parent.children_unused_guarantee += unused_guarantee(nodes_[index]);
}

// Walks the explicit capabilities up the path, so the queue named is the one
// whose own limit is reached (effective capabilities already fold in ancestors).
bool QueueTree::within_capability(QueueIndex leaf, const ResourceVector& amount, QueueIndex& capped,
                                  ResourceId& resource) const {
  for (QueueIndex q = leaf;; q = nodes_[q].parent) {
    const QueueNode& node = nodes_[q];
    for (ResourceId r = 0; r < kMaxResources; ++r) {
      if (amount.get(r) > 0 && node.spec.capability.has(r) &&
          node.allocated.get(r) + amount.get(r) > node.spec.capability.value.get(r)) {
        capped = q;
        resource = r;
        return false;
      }
    }
    if (q == kRootQueue) return true;  // root's spec.capability caps the pool
  }
}

ResourceVector QueueTree::unused_guarantees_of_others(QueueIndex leaf) const {
  ResourceVector unused;
  for (QueueIndex q = leaf; q != kRootQueue; q = nodes_[q].parent) {
    unused += nodes_[nodes_[q].parent].children_unused_guarantee;
    unused -= unused_guarantee(nodes_[q]);
  }
  return unused;
}

bool QueueTree::within_deserved(QueueIndex leaf, const ResourceVector& amount) const {
  const QueueNode& node = nodes_[leaf];
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (amount.get(r) > 0 && node.allocated.get(r) + amount.get(r) > node.deserved.get(r))
      return false;
  return true;
}

bool QueueTree::over_deserved(QueueIndex index) const {
  const QueueNode& node = nodes_[index];
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (node.allocated.get(r) > node.deserved.get(r)) return true;
  return false;
}

void QueueTree::set_strategy(QueueIndex queue, QueueStrategy strategy) {
  nodes_[queue].spec.strategy = strategy;
}

void QueueTree::enqueue(QueueIndex leaf, const PendingKey& job, const ResourceVector& request) {
  nodes_[leaf].pending_jobs.insert(job);
  nodes_[leaf].pending += request;
}

bool QueueTree::dequeue(QueueIndex leaf, const PendingKey& job, const ResourceVector& request) {
  if (!nodes_[leaf].pending_jobs.erase(job)) return false;
  nodes_[leaf].pending -= request;
  return true;
}

void QueueTree::dequeue_at(QueueIndex leaf, PendingPosition at, const ResourceVector& request) {
  nodes_[leaf].pending_jobs.erase(at);
  nodes_[leaf].pending -= request;
}

// A new dispatch is most often its queue's newest at the lowest priority,
// first in eviction order: the hint makes that insert constant-time (a wrong
// hint costs one comparison more than a plain insert).
void QueueTree::add_running(QueueIndex leaf, const RunningKey& dispatch,
                            const ResourceVector& amount) {
  add_allocation(leaf, amount);
  std::set<RunningKey>& running = nodes_[leaf].running;
  running.insert(running.begin(), dispatch);
}

void QueueTree::remove_running(QueueIndex leaf, const RunningKey& dispatch,
                               const ResourceVector& amount) {
  remove_allocation(leaf, amount);
  nodes_[leaf].running.erase(dispatch);
}

double QueueTree::refresh_share(QueueIndex index) {
  const double before = nodes_[index].share;
  nodes_[index].share = weighted_share(index);
  return before;
}

double QueueTree::weighted_share(QueueIndex index) const {
  const QueueNode& node = nodes_[index];
  double dominant = 0.0;
  for (ResourceId r = 0; r < kMaxResources; ++r)
    if (capacity_.get(r) > 0)
      dominant = std::max(dominant, static_cast<double>(node.allocated.get(r)) /
                                        static_cast<double>(capacity_.get(r)));
  return dominant / static_cast<double>(node.spec.weight);
}

}  // namespace gantry::hub
