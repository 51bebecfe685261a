#include "hub/queue_order.hpp"

namespace gantry::hub {

void QueueOrder::begin(std::size_t queues) {
  active_.assign(queues, 0);
  active_children_.assign(queues, {});
  cursor_.resize(queues);
}

void QueueOrder::activate(const QueueTree& tree, QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue && !active_[q]; q = tree.node(q).parent) {
    const QueueNode& node = tree.node(q);
    active_[q] = 1;
    active_children_[node.parent].insert(ActiveKey{-node.spec.priority, node.share, q});
  }
}

void QueueOrder::deactivate(const QueueTree& tree, QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue && active_[q]; q = tree.node(q).parent) {
    const QueueNode& node = tree.node(q);
    active_[q] = 0;
    active_children_[node.parent].erase(ActiveKey{-node.spec.priority, node.share, q});
    if (!active_children_[node.parent].empty()) break;
  }
}

void QueueOrder::reposition(QueueTree& tree, QueueIndex leaf) {
  for (QueueIndex q = leaf; q != kRootQueue; q = tree.node(q).parent) {
    const double before = tree.refresh_share(q);
    if (!active(q)) continue;
    const QueueNode& node = tree.node(q);
    std::set<ActiveKey>& siblings = active_children_[node.parent];
    siblings.erase(ActiveKey{-node.spec.priority, before, q});
    siblings.insert(ActiveKey{-node.spec.priority, node.share, q});
  }
}

}  // namespace gantry::hub
