// Which leaf queue a scheduling pass serves next: hierarchical weighted DRF,
// as Mesos' sorter and Volcano's drf plugin order queues. From the root down,
// among the active children of a queue: the higher priority first, then the
// lower weighted dominant share, then the lower index. A leaf is active while
// the pass has jobs of it left to visit; an inner queue while one of its
// leaves is.
//
// The order is what the queue stage (hub/queue_stage.hpp) follows; it owns only
// the pass's view of the queues: which are active, in what order, and each
// active leaf's cursor into its pending jobs. The shares themselves live in
// the QueueTree.
#pragma once

#include <compare>
#include <cstdint>
#include <set>
#include <vector>

#include "hub/queue_tree.hpp"

namespace gantry::hub {

// A child queue with work left in the pass, in the order siblings are served.
struct ActiveKey {
  std::int32_t negative_priority;
  double share;
  QueueIndex queue;
  auto operator<=>(const ActiveKey&) const = default;
};

class QueueOrder {
 public:
  using Cursor = std::set<PendingKey>::iterator;

  // A new pass over `queues` queues: none is active.
  void begin(std::size_t queues);
  // The leaf, and each ancestor not yet active, joins its parent's order.
  void activate(const QueueTree& tree, QueueIndex leaf);
  // The leaf leaves the order; so does each ancestor left with no active child.
  void deactivate(const QueueTree& tree, QueueIndex leaf);
  // The leaf's allocation changed: its share and its ancestors' are refreshed
  // in the tree, and the active ones move to their new place among siblings.
  void reposition(QueueTree& tree, QueueIndex leaf);

  // No leaf has work left: the pass's queue stage is done.
  bool done() const { return active_children_.empty() || active_children_[kRootQueue].empty(); }
  // The leaf to serve next; only when !done(). Inline: the pass asks once
  // per job it visits.
  QueueIndex next(const QueueTree& tree) const {
    QueueIndex q = kRootQueue;
    while (!tree.is_leaf(q)) q = active_children_[q].begin()->queue;
    return q;
  }
  bool active(QueueIndex queue) const { return queue < active_.size() && active_[queue] != 0; }
  // The next job of an active leaf.
  Cursor& cursor(QueueIndex leaf) { return cursor_[leaf]; }

 private:
  std::vector<char> active_;                          // per queue
  std::vector<std::set<ActiveKey>> active_children_;  // per queue
  std::vector<Cursor> cursor_;                        // per leaf
};

}  // namespace gantry::hub
