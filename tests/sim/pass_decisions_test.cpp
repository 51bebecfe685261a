#include "sim/pass_decisions.hpp"

#include <gtest/gtest.h>

namespace gantry::sim {
namespace {

using Kind = hub::Decision::Kind;

hub::Decision decision(Kind kind, hub::JobId job, hub::DispatchId dispatch) {
  return hub::Decision{kind, job, dispatch, 0};
}

std::vector<hub::DispatchId> ids(const std::vector<hub::Decision>& decisions) {
  std::vector<hub::DispatchId> out;
  for (const hub::Decision& d : decisions) out.push_back(d.dispatch);
  return out;
}

// Job 1 runs under dispatch 5 from an earlier pass and is evicted for job 2;
// job 3 is dispatched (7) and evicted again in this pass, then job 1 is placed
// again (8).
TEST(PassDecisions, SamePassDispatchAndEvictionIsWithdrawnNotCounted) {
  const PassDecisions split =
      split_pass_decisions({decision(Kind::kDispatch, 3, 7), decision(Kind::kEvict, 1, 5),
                            decision(Kind::kDispatch, 2, 6), decision(Kind::kEvict, 3, 7),
                            decision(Kind::kDispatch, 1, 8)});
  EXPECT_EQ(ids(split.evictions), (std::vector<hub::DispatchId>{5}));
  EXPECT_EQ(ids(split.dispatches), (std::vector<hub::DispatchId>{6, 8}));
  EXPECT_EQ(split.withdrawn, 1u);
}

// The core evicts a split dispatch with one decision per part (cluster): one
// eviction here, and a split dispatch withdrawn in its own pass is one too.
TEST(PassDecisions, ASplitDispatchIsEvictedOnce) {
  const PassDecisions split = split_pass_decisions(
      {hub::Decision{Kind::kEvict, 1, 5, 0}, hub::Decision{Kind::kEvict, 1, 5, 2},
       hub::Decision{Kind::kDispatch, 2, 6, 1}, hub::Decision{Kind::kDispatch, 3, 7, 0},
       hub::Decision{Kind::kEvict, 3, 7, 0}, hub::Decision{Kind::kEvict, 3, 7, 1}});
  EXPECT_EQ(ids(split.evictions), (std::vector<hub::DispatchId>{5}));
  EXPECT_EQ(ids(split.dispatches), (std::vector<hub::DispatchId>{6}));
  EXPECT_EQ(split.withdrawn, 1u);
}

TEST(PassDecisions, EmptyPass) {
  const PassDecisions split = split_pass_decisions({});
  EXPECT_TRUE(split.evictions.empty());
  EXPECT_TRUE(split.dispatches.empty());
  EXPECT_EQ(split.withdrawn, 0u);
}

}  // namespace
}  // namespace gantry::sim
