// The pass's queue order on its own (hub/queue_order.hpp): hierarchical
// weighted DRF over a QueueTree, as the queue stage of a pass walks it.
#include "hub/queue_order.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

class QueueOrderTest : public ::testing::Test {
 protected:
  QueueIndex add(const std::string& name, const std::string& parent = "root",
                 std::int32_t priority = 0) {
    QueueSpec spec;
    spec.name = name;
    spec.parent = parent;
    spec.priority = priority;
    return tree.apply(spec);
  }
  // As a pass begins: shares refreshed, the given leaves active.
  void begin(std::initializer_list<QueueIndex> leaves) {
    tree.refresh(gpus(16));
    for (QueueIndex q = 0; q < tree.size(); ++q) tree.refresh_share(q);
    order.begin(tree.size());
    for (QueueIndex leaf : leaves) order.activate(tree, leaf);
  }
  const std::string& next() { return tree.node(order.next(tree)).spec.name; }

  QueueTree tree;
  QueueOrder order;
};

TEST_F(QueueOrderTest, TheLowerShareGoesFirstEqualSharesByIndex) {
  const QueueIndex a = add("a");
  const QueueIndex b = add("b");
  begin({a, b});
  EXPECT_EQ(next(), "a") << "equal shares: the lower index";
  tree.add_allocation(a, gpus(4));
  begin({a, b});
  EXPECT_EQ(next(), "b");
}

TEST_F(QueueOrderTest, AHigherPriorityGoesFirstWhateverItsShare) {
  const QueueIndex a = add("a", "root", 1);
  const QueueIndex b = add("b");
  tree.add_allocation(a, gpus(12));
  begin({a, b});
  EXPECT_EQ(next(), "a");
}

// Flat DRF would serve t2 (share 0) first; the hierarchy serves the parent
// with the lower share first, then its child.
TEST_F(QueueOrderTest, ParentsAreOrderedBeforeTheirChildren) {
  add("org1");
  const QueueIndex t1 = add("t1", "org1");
  add("org2");
  const QueueIndex t2 = add("t2", "org2");
  const QueueIndex t3 = add("t3", "org2");
  tree.add_allocation(t1, gpus(4));
  tree.add_allocation(t3, gpus(8));
  begin({t1, t2, t3});
  EXPECT_EQ(next(), "t1");
  order.deactivate(tree, t1);
  EXPECT_EQ(next(), "t2") << "then org2's child with the lower share";
}

TEST_F(QueueOrderTest, RepositionMovesAServedQueueBehindItsSibling) {
  const QueueIndex a = add("a");
  const QueueIndex b = add("b");
  begin({a, b});
  ASSERT_EQ(next(), "a");
  tree.add_allocation(a, gpus(2));
  EXPECT_EQ(next(), "a") << "not moved until repositioned";
  order.reposition(tree, a);
  EXPECT_EQ(next(), "b");
  EXPECT_GT(tree.node(a).share, 0.0);
}

TEST_F(QueueOrderTest, RepositioningAnInactiveQueueOnlyRefreshesItsShare) {
  const QueueIndex a = add("a");
  const QueueIndex b = add("b");
  begin({b});
  tree.add_allocation(a, gpus(8));
  order.reposition(tree, a);
  EXPECT_FALSE(order.active(a));
  EXPECT_DOUBLE_EQ(tree.node(a).share, tree.weighted_share(a));
  EXPECT_EQ(next(), "b");
}

TEST_F(QueueOrderTest, AParentLeavesTheOrderWithItsLastActiveChild) {
  const QueueIndex org = add("org");
  const QueueIndex t1 = add("t1", "org");
  const QueueIndex t2 = add("t2", "org");
  const QueueIndex other = add("other");
  tree.add_allocation(other, gpus(8));
  begin({t1, t2, other});
  order.deactivate(tree, t1);
  EXPECT_TRUE(order.active(org)) << "t2 keeps it in";
  EXPECT_EQ(next(), "t2");
  order.deactivate(tree, t2);
  EXPECT_FALSE(order.active(org));
  EXPECT_EQ(next(), "other");
  order.deactivate(tree, other);
  EXPECT_TRUE(order.done());
}

}  // namespace
}  // namespace gantry::hub
