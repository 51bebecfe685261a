// How gantryctl shows a job's lifecycle: describe's Retries / Last Event /
// Last Action lines and the same in `get jobs -o json`.
#include <gtest/gtest.h>

#include <string>

#include "console/describe_views.hpp"
#include "console/job_views.hpp"

namespace gantry::console {
namespace {

protocol::JobInfo restarted_job() {
  protocol::JobInfo job;
  job.name = "train";
  job.queue = "default";
  job.phase = "Running";
  job.retries = 1;
  job.max_retry = 3;
  job.last_event = "PodFailed";
  job.last_event_task = "worker";
  job.last_event_replica = 2;
  job.last_exit_code = 137;
  job.last_action = "RestartJob";
  return job;
}

protocol::DescribeReply reply_for(const protocol::JobInfo& job, std::int32_t max_retry) {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job = job;
  reply.spec.name = job.name;
  reply.spec.max_retry = max_retry;
  return reply;
}

void expect_contains(const std::string& text, const std::string& expected) {
  EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << text;
}

TEST(LifecycleViews, DescribeShowsRetriesTheLastEventAndTheActionTaken) {
  const std::string text = render_job_description(reply_for(restarted_job(), 3), 0);
  expect_contains(text, "Retries:         1/3\n");
  expect_contains(text, "Last Event:      PodFailed (task worker, replica 2, exit code 137)\n");
  expect_contains(text, "Last Action:     RestartJob\n");
}

TEST(LifecycleViews, AnEventWithoutAPolicySaysTheDefaultActed) {
  protocol::JobInfo job = restarted_job();
  job.last_action.clear();
  job.retries = 0;
  const std::string text = render_job_description(reply_for(job, 3), 0);
  expect_contains(text, "Retries:         0/3\n");
  expect_contains(text, "Last Action:     none (default behaviour)\n");
}

TEST(LifecycleViews, AJobWithoutEventsShowsNone) {
  protocol::JobInfo job;
  job.name = "quiet";
  job.phase = "Pending";
  const std::string text = render_job_description(reply_for(job, 3), 0);
  expect_contains(text, "Last Event:      <none>\n");
  expect_contains(text, "Last Action:     <none>\n");
}

TEST(LifecycleViews, ATaskEventNamesItsTaskOnly) {
  protocol::JobInfo job;
  job.last_event = "TaskCompleted";
  job.last_event_task = "master";
  EXPECT_EQ(format_last_event(job), "TaskCompleted (task master)");
}

TEST(LifecycleViews, JsonCarriesTheSameFields) {
  const std::string json = render_jobs_json({restarted_job()});
  for (const char* expected :
       {"\"retries\": 1", "\"maxRetry\": 3", "\"event\": \"PodFailed\"", "\"task\": \"worker\"",
        "\"replica\": 2", "\"exitCode\": 137", "\"lastAction\": \"RestartJob\""})
    expect_contains(json, expected);
}

}  // namespace
}  // namespace gantry::console
