// A Volcano JobSpec into what the core schedules: the job's time limit from
// gantry.io/time-limit or its tasks' activeDeadlineSeconds, and how its
// queue's default and maximum resolve it at submit.
#include "hub/job_request.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"
#include "hub/time_limit.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;

// One task per deadline (seconds; 0 = the task gives none), one CPU each.
std::shared_ptr<protocol::JobSpec> spec_with(const std::vector<std::int64_t>& deadlines,
                                             protocol::Labels annotations = {}) {
  auto spec = std::make_shared<protocol::JobSpec>();
  spec->name = "train";
  spec->annotations = std::move(annotations);
  for (std::size_t i = 0; i < deadlines.size(); ++i) {
    protocol::TaskSpec task;
    task.name = "task-" + std::to_string(i);
    task.active_deadline_seconds = deadlines[i];
    task.containers.push_back(protocol::ContainerSpec{"c", "", {}, {}, {}, {{"cpu", 1000}}, {}});
    spec->tasks.push_back(std::move(task));
  }
  return spec;
}

FieldError error_of(std::shared_ptr<const protocol::JobSpec> spec) {
  try {
    make_job_request(std::move(spec));
  } catch (const FieldError& error) {
    return error;
  }
  ADD_FAILURE() << "accepted";
  return FieldError("", "", "");
}

TEST(JobRequestTimeLimit, AnnotationWinsOverTheTasksDeadlines) {
  const JobRequest request =
      make_job_request(spec_with({600, 7200}, {{kTimeLimitAnnotation, "1h30m"}}));
  EXPECT_EQ(request.time_limit_ms, 90 * kMinute);
}

TEST(JobRequestTimeLimit, LongestTaskDeadlineWhenEveryTaskGivesOne) {
  EXPECT_EQ(make_job_request(spec_with({600, 7200, 60})).time_limit_ms, 2 * kHour);
}

TEST(JobRequestTimeLimit, QueueDefaultWhenATaskGivesNoDeadline) {
  EXPECT_EQ(make_job_request(spec_with({600, 0})).time_limit_ms, -1);
  EXPECT_EQ(make_job_request(spec_with({0})).time_limit_ms, -1);
}

TEST(JobRequestTimeLimit, ZeroAnnotationAsksForNoLimit) {
  EXPECT_EQ(make_job_request(spec_with({600}, {{kTimeLimitAnnotation, "0s"}})).time_limit_ms, 0);
}

TEST(JobRequestTimeLimit, MalformedLimitsAreRefusedNamingTheField) {
  FieldError error = error_of(spec_with({0}, {{kTimeLimitAnnotation, "two hours"}}));
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/time-limit");
  EXPECT_EQ(error.value(), "two hours");
  error = error_of(spec_with({0}, {{kTimeLimitAnnotation, "90"}}));
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/time-limit");
  for (const char* too_long : {"876001h", "99999999999999999999h"}) {  // past 100 years
    error = error_of(spec_with({0}, {{kTimeLimitAnnotation, too_long}}));
    EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/time-limit");
    EXPECT_EQ(error.value(), too_long);
  }
  error = error_of(spec_with({60, kMaxTimeLimitMs / 1000 + 1}));
  EXPECT_EQ(error.field(), "spec.tasks[1].template.spec.activeDeadlineSeconds");
  error = error_of(spec_with({60, -5}));
  EXPECT_EQ(error.field(), "spec.tasks[1].template.spec.activeDeadlineSeconds");
  EXPECT_EQ(error.value(), "-5");
}

// make_job_request's limit through the queue at submit, as the hub does it.
class TimeLimitAtSubmit : public testing::CoreHarness {
 protected:
  void SetUp() override {
    QueueSpec queue;
    queue.name = "limited";
    queue.default_time_limit_ms = kHour;
    queue.max_time_limit_ms = 4 * kHour;
    apply_queue(queue);
  }
  JobId submit_to(const std::string& queue, std::shared_ptr<protocol::JobSpec> spec) {
    spec->queue = queue;
    spec->name = "job-" + std::to_string(++submitted_);
    return submit(make_job_request(std::move(spec)));
  }
  int submitted_ = 0;
};

TEST_F(TimeLimitAtSubmit, JobsWithoutALimitGetTheQueueDefault) {
  EXPECT_EQ(core.job(submit_to("limited", spec_with({0}))).time_limit_ms, kHour);
  EXPECT_EQ(core.job(submit_to("default", spec_with({0}))).time_limit_ms, 0) << "none";
}

TEST_F(TimeLimitAtSubmit, AskedLimitsUpToTheMaximumAreKept) {
  EXPECT_EQ(core.job(submit_to("limited", spec_with({7200}))).time_limit_ms, 2 * kHour);
  EXPECT_EQ(
      core.job(submit_to("limited", spec_with({0}, {{kTimeLimitAnnotation, "4h"}}))).time_limit_ms,
      4 * kHour);
}

TEST_F(TimeLimitAtSubmit, MoreThanTheMaximumIsRefusedNamingTheAnnotation) {
  try {
    submit_to("limited", spec_with({0}, {{kTimeLimitAnnotation, "5h"}}));
    ADD_FAILURE() << "accepted";
  } catch (const FieldError& error) {
    EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/time-limit");
    EXPECT_NE(std::string(error.what()).find("at most 4h"), std::string::npos) << error.what();
  }
  EXPECT_THROW(submit_to("limited", spec_with({0}, {{kTimeLimitAnnotation, "0s"}})), FieldError)
      << "no limit is more than the maximum";
}

TEST_F(TimeLimitAtSubmit, MoreThanTheMaximumFromADeadlineNamesTheTaskThatAskedIt) {
  try {
    submit_to("limited", spec_with({600, 5 * 3600, 60}));
    ADD_FAILURE() << "accepted";
  } catch (const FieldError& error) {
    EXPECT_EQ(error.field(), "spec.tasks[1].template.spec.activeDeadlineSeconds")
        << "the field the user wrote, not the annotation";
    EXPECT_EQ(error.value(), "5h");
  }
}

}  // namespace
}  // namespace gantry::hub
