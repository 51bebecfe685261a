#include "hub/queue_tree.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"
#include "tests/core/core_fixtures.hpp"

namespace gantry::hub {
namespace {

using testing::gpus;

QueueSpec queue(const std::string& name, std::int32_t weight = 1,
                const std::string& parent = "root") {
  QueueSpec spec;
  spec.name = name;
  spec.weight = weight;
  spec.parent = parent;
  return spec;
}

void expect_refused(QueueTree& tree, const QueueSpec& spec, const std::string& field) {
  try {
    tree.apply(spec);
    ADD_FAILURE() << "accepted; expected an error on " << field;
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(QueueTree, DeservedFollowsWeightsAndExplicitValues) {
  QueueTree tree;
  tree.apply(queue("a", 1));
  tree.apply(queue("b", 3));
  tree.refresh(gpus(64, 128));
  // default (weight 1), a (1), b (3) share the pool 1:1:3.
  EXPECT_EQ(tree.node(*tree.find("a")).deserved.gpus(), 12);
  EXPECT_EQ(tree.node(*tree.find("b")).deserved.gpus(), 38);
  QueueSpec fixed = queue("a");
  fixed.deserved.set(kGpu, 32 * kMilli);
  tree.apply(fixed);
  tree.refresh(gpus(64, 128));
  EXPECT_EQ(tree.node(*tree.find("a")).deserved.gpus(), 32);
  EXPECT_EQ(tree.node(*tree.find("b")).deserved.gpus(), 24) << "the rest, 3:1 with default";
}

TEST(QueueTree, HierarchyAggregatesAllocation) {
  QueueTree tree;
  tree.apply(queue("org"));
  tree.apply(queue("team", 1, "org"));
  tree.refresh(gpus(16));
  tree.add_allocation(*tree.find("team"), gpus(4));
  EXPECT_EQ(tree.node(*tree.find("org")).allocated.gpus(), 4);
  EXPECT_EQ(tree.node(kRootQueue).allocated.gpus(), 4);
  tree.remove_allocation(*tree.find("team"), gpus(4));
  EXPECT_TRUE(tree.node(*tree.find("org")).allocated.is_zero());
}

TEST(QueueTree, CapabilityBoundsTheQueueAndItsChildren) {
  QueueTree tree;
  QueueSpec org = queue("org");
  org.capability.set(kGpu, 8 * kMilli);
  tree.apply(org);
  tree.apply(queue("team", 1, "org"));
  tree.refresh(gpus(64));
  const QueueIndex team = *tree.find("team");
  QueueIndex capped = 0;
  ResourceId resource = 0;
  EXPECT_TRUE(tree.within_capability(team, gpus(8), capped, resource));
  tree.add_allocation(team, gpus(6));
  EXPECT_FALSE(tree.within_capability(team, gpus(4), capped, resource));
  EXPECT_EQ(capped, *tree.find("org"));
  EXPECT_EQ(resource, kGpu);
}

TEST(QueueTree, UnusedGuaranteesAreReservedForTheirOwners) {
  QueueTree tree;
  QueueSpec a = queue("a");
  a.guarantee.set(kGpu, 8 * kMilli);
  tree.apply(a);
  tree.apply(queue("b"));
  tree.refresh(gpus(32));
  EXPECT_EQ(tree.unused_guarantees_of_others(*tree.find("b")).gpus(), 8);
  EXPECT_EQ(tree.unused_guarantees_of_others(*tree.find("a")).gpus(), 0);
  tree.add_allocation(*tree.find("a"), gpus(5));
  EXPECT_EQ(tree.unused_guarantees_of_others(*tree.find("b")).gpus(), 3);
  tree.add_allocation(*tree.find("a"), gpus(10));
  EXPECT_EQ(tree.unused_guarantees_of_others(*tree.find("b")).gpus(), 0);
}

TEST(QueueTree, ValidationNamesTheField) {
  QueueTree tree;
  QueueSpec bad = queue("a");
  bad.weight = 0;
  expect_refused(tree, bad, "spec.weight");
  bad = queue("a");
  bad.guarantee.set(kGpu, 8 * kMilli);
  bad.deserved.set(kGpu, 4 * kMilli);
  expect_refused(tree, bad, "spec.guarantee.resource.nvidia.com/gpu");
  bad = queue("a");
  bad.deserved.set(kGpu, 16 * kMilli);
  bad.capability.set(kGpu, 8 * kMilli);
  expect_refused(tree, bad, "spec.deserved.nvidia.com/gpu");
  expect_refused(tree, queue("a", 1, "nowhere"), "spec.parent");
  // root may be applied (the pool's bounds) but has no parent.
  expect_refused(tree, queue("root", 1, "default"), "spec.parent");
  QueueSpec capped = queue("a");
  capped.capability.set(kGpu, 16 * kMilli);
  tree.apply(capped);
  QueueSpec small_root = queue("root", 1, "");
  small_root.capability.set(kGpu, 8 * kMilli);
  expect_refused(tree, small_root, "spec.capability.nvidia.com/gpu");
}

TEST(QueueTree, ChildrenStayWithinTheirParent) {
  QueueTree tree;
  QueueSpec org = queue("org");
  org.guarantee.set(kGpu, 8 * kMilli);
  org.deserved.set(kGpu, 16 * kMilli);
  tree.apply(org);
  QueueSpec first = queue("first", 1, "org");
  first.guarantee.set(kGpu, 6 * kMilli);
  tree.apply(first);
  QueueSpec second = queue("second", 1, "org");
  second.guarantee.set(kGpu, 4 * kMilli);
  expect_refused(tree, second, "spec.guarantee.resource.nvidia.com/gpu");
  second.guarantee = {};
  second.deserved.set(kGpu, 17 * kMilli);
  expect_refused(tree, second, "spec.deserved.nvidia.com/gpu");
  QueueSpec shrunk = org;
  shrunk.guarantee.set(kGpu, 4 * kMilli);
  shrunk.deserved.set(kGpu, 16 * kMilli);
  expect_refused(tree, shrunk, "spec.guarantee.resource.nvidia.com/gpu");
}

TEST(QueueTree, NoCycles) {
  QueueTree tree;
  tree.apply(queue("a"));
  tree.apply(queue("b", 1, "a"));
  expect_refused(tree, queue("a", 1, "b"), "spec.parent");
  expect_refused(tree, queue("a", 1, "a"), "spec.parent");
}

TEST(QueueTree, DeleteRules) {
  QueueTree tree;
  tree.apply(queue("a"));
  tree.apply(queue("b", 1, "a"));
  EXPECT_THROW(tree.remove("a"), FieldError) << "has a child";
  EXPECT_THROW(tree.remove("default"), FieldError);
  tree.remove("b");
  tree.remove("a");
  EXPECT_FALSE(tree.find("a"));
  tree.apply(queue("a"));  // the name can be used again
  EXPECT_TRUE(tree.find("a"));
}

}  // namespace
}  // namespace gantry::hub
