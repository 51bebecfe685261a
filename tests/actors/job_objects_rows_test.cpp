// actors::JobObjects: what the hub keeps beside the core about each job (its
// store row, its events) goes when the job is forgotten, and only then; the
// rows come back for the store to forget. The retention's own rules are
// tests/core/job_objects_test.cpp's.
#include <gtest/gtest.h>

#include "actors/job_objects.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::actors {
namespace {

using hub::testing::gpu_job;

class JobObjectsRowsTest : public hub::testing::CoreHarness {
 protected:
  static constexpr hub::TimeMs kStopGrace = 120'000;

  void SetUp() override { add_cluster("east", 1, 8); }

  hub::JobId accept(const std::string& name, std::int64_t row) {
    const hub::JobId id = submit(gpu_job(name, 8));
    objects.accepted(id, row, now);
    return id;
  }
  hub::JobEnd end_of(hub::JobId id) { return hub::JobEnd{id, hub::JobPhase::kCompleted, now}; }
  // A running job is deleted: not forgotten yet, it is cancelled (the
  // objects hear of its end) and waits for its part on east to stop.
  // Returns its dispatch.
  hub::DispatchId delete_running(hub::JobId id) {
    pass();
    const hub::DispatchId dispatch = core.job(id).dispatch;
    EXPECT_FALSE(objects.remove(id, now, forgotten));
    cancel(id);
    return dispatch;
  }
  // What a delete does to a job that has not ended: it is cancelled, and
  // the objects hear of its end.
  void cancel(hub::JobId id) {
    core.cancel(core.job(id).name, now);
    objects.ended(hub::JobEnd{id, hub::JobPhase::kAborted, now}, now, forgotten);
  }

  JobObjects objects{core, -1, kStopGrace};
  ForgottenRows forgotten;
};

TEST_F(JobObjectsRowsTest, AcceptedJobKeepsItsRowAndASubmittedEvent) {
  const hub::JobId id = accept("a", 41);
  EXPECT_EQ(objects.row(id), 41);
  ASSERT_EQ(objects.events().list(id).size(), 1u);
  EXPECT_NE(objects.events().list(id).front().find("submitted"), std::string::npos);
}

TEST_F(JobObjectsRowsTest, PendingJobDeletedIsForgottenAtItsCancelWithItsRowAndEvents) {
  const hub::JobId id = accept("a", 41);
  EXPECT_FALSE(objects.remove(id, now, forgotten)) << "not ended yet";
  cancel(id);
  EXPECT_EQ(forgotten, ForgottenRows{41});
  EXPECT_EQ(objects.row(id), 0);
  EXPECT_TRUE(objects.events().list(id).empty());
}

TEST_F(JobObjectsRowsTest, EndedJobDeletedIsForgottenAtOnce) {
  const hub::JobId id = accept("a", 41);
  cancel(id);
  EXPECT_TRUE(forgotten.empty());
  EXPECT_TRUE(objects.remove(id, now, forgotten));
  EXPECT_EQ(forgotten, ForgottenRows{41});
}

TEST_F(JobObjectsRowsTest, RunningJobDeletedIsForgottenOnlyOnceItsPartStopped) {
  const hub::JobId id = accept("a", 41);
  const hub::DispatchId dispatch = delete_running(id);
  EXPECT_TRUE(forgotten.empty()) << "its replicas still run under its name";
  EXPECT_EQ(objects.row(id), 41);
  objects.part_stopped(dispatch, "east", now, forgotten);
  EXPECT_EQ(forgotten, ForgottenRows{41});
}

TEST_F(JobObjectsRowsTest, ReconnectingAgentThatNoLongerListsTheDeletedPartStoppedIt) {
  const hub::DispatchId dispatch = delete_running(accept("a", 41));
  protocol::Hello hello;
  hello.cluster = "east";
  hello.running.push_back(protocol::RunningDispatch{});
  hello.running.back().dispatch_id = dispatch;
  objects.parts_listed(hello, now, forgotten);
  EXPECT_TRUE(forgotten.empty()) << "still listed: still running";
  hello.running.clear();
  objects.parts_listed(hello, now, forgotten);
  EXPECT_EQ(forgotten, ForgottenRows{41});
}

TEST_F(JobObjectsRowsTest, EndStoredReleasesTheJobButTheStoreKeepsItsRow) {
  const hub::JobId id = accept("a", 41);
  pass();
  finish("a");
  objects.ended(end_of(id), now, forgotten);
  objects.end_stored(id, 41);
  EXPECT_TRUE(forgotten.empty()) << "the store lists and expires it from now on";
  EXPECT_EQ(objects.row(id), 0);
  EXPECT_TRUE(core.job(id).forgotten);
}

TEST_F(JobObjectsRowsTest, EndStoredForARowDeletedMeanwhileChangesNothing) {
  const hub::JobId id = accept("a", 41);
  pass();
  finish("a");
  objects.ended(end_of(id), now, forgotten);
  objects.end_stored(id, 7);  // another row: not this job's
  EXPECT_EQ(objects.row(id), 41);
  EXPECT_FALSE(core.job(id).forgotten);
}

TEST_F(JobObjectsRowsTest, ZeroTtlForgetsTheJobAndHandsItsRowBackWhenItEnds) {
  hub::JobRequest request = gpu_job("a", 8);
  request.ttl_after_finished_ms = 0;
  const hub::JobId id = submit(std::move(request));
  objects.accepted(id, 41, now);
  pass();
  finish("a");
  objects.ended(end_of(id), now, forgotten);
  EXPECT_EQ(forgotten, ForgottenRows{41});
  EXPECT_EQ(objects.next_expiry(), hub::kNever);
}

}  // namespace
}  // namespace gantry::actors
