// What the hub tells Prometheus (actors/hub_metrics.hpp): the gauges read the
// same views as gantryctl, in base units; the counters and histograms count
// what passes and agents did.
#include "actors/hub_metrics.hpp"

#include <map>
#include <string>

#include "actors/hub_io_metrics.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::actors {
namespace {

// "name{labels}" -> value, for every sample line of a scrape.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// The sample of `resource` of one cluster or queue, with the unit
// kube-state-metrics would give it.
std::string resource_key(const std::string& metric, const std::string& owner,
                         const std::string& name, const std::string& resource) {
  const std::string unit = resource == "cpu" ? "core" : resource == "memory" ? "byte" : "integer";
  return metric + "{" + owner + "=\"" + name + "\",resource=\"" + resource + "\",unit=\"" + unit +
         "\"}";
}

class HubMetricsTest : public hub::testing::CoreHarness {
 protected:
  void SetUp() override { add_cluster("east", 2, 8); }  // 16 GPUs, 128 cores

  // One pass at `now`, observed as the scheduler actor does.
  void observed_pass(double seconds = 0.002) {
    const std::vector<hub::Decision> decisions = core.schedule(now);
    metrics.observe_pass(core, decisions, now, seconds);
  }

  std::map<std::string, double> scrape(const HubHealth& health = {}) {
    return samples(metrics.render(core, {{"east", 5'000}}, now, health));
  }

  SchedulingMetrics metrics;
};

TEST_F(HubMetricsTest, QueueJobsAndTheWaitToTheFirstPlacement) {
  submit(hub::testing::gpu_job("first", 8));
  submit(hub::testing::gpu_job("second", 16));  // no room once first holds 8
  now += 3'000;
  observed_pass();
  const auto scraped = scrape();
  EXPECT_EQ(scraped.at("gantry_queue_pending_jobs{queue=\"default\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_dispatched_jobs{queue=\"default\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_running_jobs{queue=\"default\"}"), 0);
  EXPECT_EQ(scraped.at("gantry_queue_admissions_total{queue=\"default\"}"), 1);
  // Waited 3 s: not in the 2 s bucket, in the 4 s one and all above.
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_count{queue=\"default\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_sum{queue=\"default\"}"), 3);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_bucket{queue=\"default\",le=\"2\"}"), 0);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_bucket{queue=\"default\",le=\"4\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_bucket{queue=\"default\",le=\"+Inf\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_scheduling_decisions_total{kind=\"dispatch\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_scheduling_pass_duration_seconds_count"), 1);
  EXPECT_EQ(scraped.at("gantry_scheduling_pass_duration_seconds_sum"), 0.002);
}

TEST_F(HubMetricsTest, AJobPlacedAgainDoesNotWaitAnew) {
  submit(hub::testing::gpu_job("refused-once", 8));
  now += 2'000;
  observed_pass();
  core.rejected(job("refused-once").dispatch, "no room after all", now);
  now += 60'000;  // past any backoff
  observed_pass();
  ASSERT_EQ(job("refused-once").epoch, 2u) << "placed a second time";
  const auto scraped = scrape();
  EXPECT_EQ(scraped.at("gantry_queue_admissions_total{queue=\"default\"}"), 2);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_count{queue=\"default\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_sum{queue=\"default\"}"), 2);
}

TEST_F(HubMetricsTest, APassWithoutPlacementsWaitsNobody) {
  submit(hub::testing::gpu_job("too-big", 32));
  observed_pass();
  observed_pass();
  const auto scraped = scrape();
  EXPECT_EQ(scraped.at("gantry_queue_pending_jobs{queue=\"default\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_queue_wait_seconds_count{queue=\"default\"}"), 0);
  EXPECT_EQ(scraped.at("gantry_scheduling_pass_duration_seconds_count"), 2);
}

TEST_F(HubMetricsTest, ClusterResourcesInBaseUnitsAsGantryctlHasThem) {
  submit(hub::testing::gpu_job("holds-eight", 8));
  observed_pass();
  const auto scraped = scrape();
  const std::string east = "{cluster=\"east\",resource=";
  EXPECT_EQ(scraped.at("gantry_cluster_capacity" + east + "\"nvidia.com/gpu\",unit=\"integer\"}"),
            16);
  EXPECT_EQ(scraped.at("gantry_cluster_capacity" + east + "\"cpu\",unit=\"core\"}"), 128);
  EXPECT_EQ(scraped.at("gantry_cluster_allocated" + east + "\"nvidia.com/gpu\",unit=\"integer\"}"),
            8);
  EXPECT_EQ(scraped.at("gantry_cluster_free" + east + "\"nvidia.com/gpu\",unit=\"integer\"}"), 8);
  EXPECT_EQ(scraped.at("gantry_cluster_ready{cluster=\"east\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_cluster_last_seen_timestamp_seconds{cluster=\"east\"}"), 5);
  // Every resource of every listed cluster and queue, as gantryctl gets it.
  const LastSeen seen{{"east", 5'000}};
  for (const auto& cluster : list_reply(core, {"clusters"}, seen, now).clusters)
    for (const auto& [resource, milli] : cluster.capacity)
      EXPECT_EQ(
          scraped.at(resource_key("gantry_cluster_capacity", "cluster", cluster.name, resource)),
          milli / 1000.0);
  for (const auto& queue : list_reply(core, {"queues"}, seen, now).queues)
    for (const auto& [resource, milli] : queue.deserved)
      EXPECT_EQ(scraped.at(resource_key("gantry_queue_deserved", "queue", queue.name, resource)),
                milli / 1000.0);
}

TEST_F(HubMetricsTest, PreparesAnsweredAreCountedByAnswer) {
  metrics.prepare_answered("east", true);
  metrics.prepare_answered("east", true);
  metrics.prepare_answered("east", false);
  const auto scraped = scrape();
  EXPECT_EQ(scraped.at("gantry_cluster_prepares_total{cluster=\"east\",result=\"admitted\"}"), 2);
  EXPECT_EQ(scraped.at("gantry_cluster_prepares_total{cluster=\"east\",result=\"refused\"}"), 1);
}

TEST_F(HubMetricsTest, ReadinessSaysWhyNot) {
  EXPECT_EQ(not_ready_reason({}), "");
  EXPECT_NE(not_ready_reason({true, ""}).find("recovering"), std::string::npos);
  EXPECT_NE(not_ready_reason({false, "disk full"}).find("disk full"), std::string::npos);
  EXPECT_EQ(scrape({true, ""}).at("gantry_hub_ready"), 0);
  EXPECT_EQ(scrape({true, ""}).at("gantry_hub_recovering"), 1);
  EXPECT_EQ(scrape({false, "disk full"}).at("gantry_store_degraded"), 1);
  EXPECT_EQ(scrape().at("gantry_hub_ready"), 1);
}

// ---- the I/O thread's and the store's (actors/hub_io_metrics.hpp)

std::map<std::string, double> io_scrape(const HubIoMetrics& metrics) {
  support::PrometheusText out;
  metrics.render(out);
  return samples(out.text());
}

TEST(HubIoMetrics, AnAnswerIsCountedByResultAndTimedFromItsRequest) {
  HubIoMetrics metrics;
  const auto at = HubIoMetrics::Clock::now();
  metrics.requested("ctl-1", 7, "SubmitJob", at);
  metrics.requested("ctl-1", 8, "SubmitJob", at);
  metrics.requested("ctl-2", 7, "List", at);
  metrics.answered("ctl-1", 7, "ok", at + std::chrono::milliseconds(3));
  metrics.answered("ctl-1", 8, "refused", at + std::chrono::milliseconds(1));
  metrics.answered("ctl-2", 7, "ok", at + std::chrono::microseconds(40));
  metrics.answered("ctl-2", 7, "ok", at);  // answered already: not counted twice
  metrics.answered("ctl-3", 1, "ok", at);  // never asked (a refusal of the bridge's)
  metrics.refused("Cancel", "forbidden");
  const auto scraped = io_scrape(metrics);
  EXPECT_EQ(scraped.at("gantry_admin_requests_total{command=\"SubmitJob\",result=\"ok\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_admin_requests_total{command=\"SubmitJob\",result=\"refused\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_admin_requests_total{command=\"List\",result=\"ok\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_admin_requests_total{command=\"Cancel\",result=\"forbidden\"}"), 1);
  EXPECT_EQ(scraped.at("gantry_admin_request_duration_seconds_count{command=\"SubmitJob\"}"), 2);
  EXPECT_DOUBLE_EQ(scraped.at("gantry_admin_request_duration_seconds_sum{command=\"SubmitJob\"}"),
                   0.004);
  EXPECT_EQ(
      scraped.at("gantry_admin_request_duration_seconds_bucket{command=\"List\",le=\"5e-05\"}"), 1);
  EXPECT_EQ(scraped.count("gantry_admin_request_duration_seconds_count{command=\"Cancel\"}"), 0u)
      << "refused before the actors: not timed";
}

TEST(HubIoMetrics, CommitsAreTimedAndTheirWritesCounted) {
  HubIoMetrics metrics;
  metrics.committed(0.002, 5);
  metrics.committed(0.5, 1);
  const auto scraped = io_scrape(metrics);
  EXPECT_EQ(scraped.at("gantry_store_commit_duration_seconds_count"), 2);
  EXPECT_EQ(scraped.at("gantry_store_committed_writes_total"), 6);
}

}  // namespace
}  // namespace gantry::actors
