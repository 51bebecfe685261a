// SubmitJobsRequest through the hub's actors: many documents in one round
// trip, each job answered on its own and in order, the valid ones recorded in
// one transaction and still there after a restart; job arrays expanded.
#include <gmock/gmock.h>

#include <regex>

#include "hub_actors_fixture.hpp"
#include "support/prometheus_text.hpp"

namespace gantry::actors {
namespace {

using ::testing::HasSubstr;

std::string array_yaml(const std::string& name, const std::string& indices) {
  std::string yaml = job_yaml(name, 1, 1);
  const std::string metadata = "  name: " + name + "\n";
  yaml.insert(yaml.find(metadata) + metadata.size(),
              "  annotations: {gantry.io/array: \"" + indices + "\"}\n");
  return yaml;
}

struct Outcome {
  std::int32_t document;
  bool ok;
  std::string job;
  bool operator==(const Outcome&) const = default;
};

std::vector<Outcome> outcomes(const protocol::SubmitJobsReply& reply) {
  std::vector<Outcome> out;
  for (const protocol::SubmittedJob& job : reply.jobs)
    out.push_back({job.document, job.ok, job.job});
  return out;
}

class SubmitManyTest : public HubActorsTest {
 protected:
  protocol::SubmitJobsReply submit_many(std::vector<std::string> yamls) {
    return ask<protocol::SubmitJobsReply>(protocol::SubmitJobsRequest{std::move(yamls)});
  }

  bool listed(const std::string& name) {
    return ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name}).ok;
  }

  // The value of a sample line "NAME VALUE" of the store's metrics.
  double store_metric(const std::string& name) {
    support::PrometheusText out;
    io_metrics->render(out);
    std::smatch match;
    const std::string text = out.text();
    if (!std::regex_search(text, match, std::regex("\n" + name + " ([0-9.e+]+)\n")))
      throw std::runtime_error(name + " is not in\n" + text);
    return std::stod(match[1]);
  }
};

TEST_F(SubmitManyTest, EachJobIsAnsweredInDocumentOrderAndARefusedDocumentStopsNoOther) {
  const auto reply =
      submit_many({job_yaml("first", 1, 1), "kind: Job\n", array_yaml("sweep", "0-2"),
                   job_yaml("elsewhere", 1, 1, "nope"), job_yaml("last", 1, 1)});
  ASSERT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(outcomes(reply), (std::vector<Outcome>{{0, true, "first"},
                                                   {1, false, ""},
                                                   {2, true, "sweep-0"},
                                                   {2, true, "sweep-1"},
                                                   {2, true, "sweep-2"},
                                                   {3, false, "elsewhere"},
                                                   {4, true, "last"}}));
  EXPECT_THAT(reply.jobs[1].error, HasSubstr("apiVersion"));
  EXPECT_THAT(reply.jobs[5].error, HasSubstr("nope"));
  for (const char* name : {"first", "sweep-0", "sweep-1", "sweep-2", "last"})
    EXPECT_TRUE(listed(name)) << name;
  EXPECT_FALSE(listed("elsewhere"));
  EXPECT_EQ(job("sweep-1").labels.at("gantry.io/array-job"), "sweep");
}

TEST_F(SubmitManyTest, TheValidJobsOfARequestAreRecordedInOneTransaction) {
  io_metrics = std::make_shared<HubIoMetrics>();
  stop();
  start();
  const double commits = store_metric("gantry_store_commit_duration_seconds_count");
  const double writes = store_metric("gantry_store_committed_writes_total");
  std::vector<std::string> yamls;
  for (int i = 0; i < 50; ++i) yamls.push_back(job_yaml("job-" + std::to_string(i), 1, 1));
  yamls.push_back(array_yaml("sweep", "1-50"));
  const auto reply = submit_many(yamls);
  ASSERT_EQ(reply.jobs.size(), 100u);
  for (const protocol::SubmittedJob& job : reply.jobs) EXPECT_TRUE(job.ok) << job.job << job.error;
  EXPECT_EQ(store_metric("gantry_store_commit_duration_seconds_count") - commits, 1);
  EXPECT_EQ(store_metric("gantry_store_committed_writes_total") - writes, 100);
}

TEST_F(SubmitManyTest, AcknowledgedJobsAreThereAfterARestartAndRefusedOnesAreNot) {
  // The second "twin" is refused by the core (the name is taken) after it was
  // recorded: its row is forgotten, so no restart brings it back.
  const auto reply =
      submit_many({job_yaml("twin", 1, 1), job_yaml("twin", 1, 2), array_yaml("a", "3,5")});
  EXPECT_EQ(outcomes(reply),
            (std::vector<Outcome>{
                {0, true, "twin"}, {1, false, "twin"}, {2, true, "a-3"}, {2, true, "a-5"}}));
  stop();
  start();
  EXPECT_EQ(job("twin").requests.at("nvidia.com/gpu"), 1000) << "the first twin, not the second";
  EXPECT_EQ(job("a-5").labels.at("gantry.io/array-job"), "a");
  EXPECT_TRUE(listed("a-3"));
  const auto listing = ask<protocol::ListReply>(protocol::ListRequest{"jobs"});
  EXPECT_EQ(listing.jobs.size(), 3u);
}

TEST_F(SubmitManyTest, AnOperatorKeyIsRefusedPerJobOutsideItsQueues) {
  const std::string peer = "console-alice";
  router->on_message(InboundMessage{
      Channel::kAdmin, peer, 7,
      protocol::SubmitJobsRequest{{job_yaml("mine", 1, 1), job_yaml("theirs", 1, 1, "research")}},
      Sender{"alice", Role::kOperator, {"default"}}});
  sched.run();
  const auto frames = frames_of<protocol::SubmitJobsReply>(sent());
  ASSERT_EQ(frames.size(), 1u);
  const protocol::SubmitJobsReply& reply = frames[0].second;
  EXPECT_EQ(outcomes(reply), (std::vector<Outcome>{{0, true, "mine"}, {1, false, "theirs"}}));
  EXPECT_THAT(reply.jobs[1].error, HasSubstr("is not one of the queues of key \"alice\""));
}

TEST_F(SubmitManyTest, MoreDocumentsThanTheLimitAreRefusedWholeNamingTheLimit) {
  std::vector<std::string> yamls(protocol::kMaxSubmitDocuments + 1, job_yaml("same", 1, 1));
  const auto reply = submit_many(yamls);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error, "yamls: 1001 documents exceed the limit of 1000 per request");
  EXPECT_TRUE(reply.jobs.empty());
  EXPECT_FALSE(listed("same"));
}

TEST_F(SubmitManyTest, ASingleSubmitOfAnArraySaysWhereArraysGo) {
  const protocol::SubmitJobReply reply = submit(array_yaml("sweep", "0-3"));
  EXPECT_FALSE(reply.ok);
  EXPECT_THAT(reply.error, HasSubstr("metadata.annotations.gantry.io/array: a job array is "
                                     "submitted with gantryctl submit"));
  EXPECT_FALSE(listed("sweep-0"));
}

}  // namespace
}  // namespace gantry::actors
