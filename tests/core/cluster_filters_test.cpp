// The cluster feasibility checks on their own (hub/cluster_filters.hpp): the
// table, which check turns which cluster away, and the pending reason that
// counts them.
#include "hub/cluster_filters.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::nodes;

ClusterState ready_cluster(const std::vector<NodeSpec>& specs) {
  return testing::ready_cluster("c", specs);
}

Job job_of(std::int64_t gpus) {
  return testing::job_of(make_gpu_gang(gpus, 8));
}

// The name of the first check that turns the cluster away, "" if none.
std::string refused_by(const ClusterState& cluster, const Job& job, FilterScope scope,
                       TimeMs now = 0) {
  const ClusterFilter* filter = first_refusing(FilterInput{cluster, 0, job, now}, scope);
  return filter ? std::string(filter->name) : "";
}

TEST(ClusterFilters, EachCheckIsRegisteredOnceByNameNarrowerScopesFirst) {
  std::set<std::string_view> names;
  FilterScope previous = FilterScope::kEligible;
  for (const ClusterFilter& filter : registered_cluster_filters()) {
    EXPECT_TRUE(names.insert(filter.name).second) << filter.name;
    EXPECT_EQ(find_cluster_filter(filter.name), &filter);
    EXPECT_GE(filter.scope, previous) << filter.name;
    EXPECT_FALSE(filter.refusal.empty()) << filter.name;
    previous = filter.scope;
  }
  EXPECT_EQ(find_cluster_filter("no-such-check"), nullptr);
}

TEST(ClusterFilters, EachCheckTurnsAwayTheClusterItNames) {
  const Job job = job_of(8);
  ClusterState cluster = ready_cluster(nodes(1, 8));
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kWorthTrying), "");
  cluster.set_cordoned(true);
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kEligible), "uncordoned");
  cluster.set_ready(false);
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kEligible), "ready") << "the first check wins";

  Job pinned = job_of(8);
  pinned.allowed_clusters = {3};
  EXPECT_EQ(refused_by(ready_cluster(nodes(1, 8)), pinned, FilterScope::kEligible),
            "pinned-clusters");

  Job selecting = job_of(8);
  selecting.notes().cluster_selector = {{"tier", "gold"}};
  ClusterState gold = ready_cluster(nodes(1, 8));
  EXPECT_EQ(refused_by(gold, selecting, FilterScope::kEligible), "cluster-selector");
  gold.set_labels({{"tier", "gold"}, {"region", "eu"}});
  EXPECT_EQ(refused_by(gold, selecting, FilterScope::kEligible), "");

  EXPECT_EQ(refused_by(ready_cluster(nodes(1, 4)), job, FilterScope::kEligible), "")
      << "room is not eligibility: holds and plans still consider the cluster";
  EXPECT_EQ(refused_by(ready_cluster(nodes(1, 4)), job, FilterScope::kWorthTrying),
            "free-in-total");
}

TEST(ClusterFilters, ABackoffSkipsTheTryButKeepsTheClusterEligible) {
  Job job = job_of(8);
  job.notes().backoffs.push_back(ClusterBackoff{0, 1, 2'000});
  const ClusterState cluster = ready_cluster(nodes(1, 8));
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kEligible, 1'999), "");
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kWorthTrying, 1'999), "not-backed-off");
  EXPECT_EQ(refused_by(cluster, job, FilterScope::kWorthTrying, 2'000), "");
}

class NoEligibleClusterReason : public testing::CoreHarness {
 protected:
  ClusterIndex add_labelled(const std::string& name, Labels labels) {
    const ClusterIndex c = core.add_cluster(name, std::move(labels));
    core.report_usage(c, nodes(1, 8, 64, name), {});
    core.set_cluster_ready(c, true);
    return c;
  }
};

TEST_F(NoEligibleClusterReason, CountsEachClusterUnderTheCheckThatTurnsItAway) {
  add_labelled("silver-1", {{"tier", "silver"}});
  add_labelled("silver-2", {{"tier", "silver"}});
  const ClusterIndex cordoned = add_labelled("gold-1", {{"tier", "gold"}});
  core.set_cordoned(cordoned, true);
  const ClusterIndex down = core.add_cluster("gold-2", {{"tier", "gold"}});
  JobRequest request = testing::gpu_job("wants-gold", 8);
  request.cluster_selector = {{"tier", "gold"}};
  submit(std::move(request));
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("wants-gold").reason.kind, PendingReason::Kind::kNoAllowedCluster);
  EXPECT_EQ(core.reason_text(job("wants-gold")),
            "0/4 clusters may take it: 2 not matching its gantry.io/cluster-selector, "
            "1 not ready, 1 cordoned")
      << "most frequent first, ties in the table's order";

  core.report_usage(down, nodes(1, 8, 64, "gold-2"), {});
  core.set_cluster_ready(down, true);
  EXPECT_EQ(core.reason_text(job("wants-gold")),
            "when the last pass looked, no cluster it may run on was ready and uncordoned")
      << "eligible now: the next pass tries it";
  EXPECT_EQ(scheduled_names(), std::vector<std::string>{"wants-gold"});
}

TEST_F(NoEligibleClusterReason, NoClusterAtAllSaysNoneHasJoined) {
  submit(testing::gpu_job("early", 8));
  EXPECT_TRUE(scheduled_names().empty());
  EXPECT_EQ(job("early").reason.kind, PendingReason::Kind::kNoReadyCluster);
  EXPECT_EQ(core.reason_text(job("early")), "no member cluster has joined");
}

}  // namespace
}  // namespace gantry::hub
