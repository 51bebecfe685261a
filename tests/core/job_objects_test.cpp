// Job objects (issue 12): names made from metadata.generateName, forgetting a
// job (delete, ttlSecondsAfterFinished) and the name it frees.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "hub/field_error.hpp"
#include "hub/job_retention.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::gpu_job;
using testing::nodes;

JobRequest generated(const std::string& prefix) {
  JobRequest request = gpu_job("", 1);
  request.generate_name = prefix;
  return request;
}

JobRequest with_ttl(const std::string& name, std::int64_t ttl_ms) {
  JobRequest request = gpu_job(name, 1);
  request.ttl_after_finished_ms = ttl_ms;
  return request;
}

class JobObjectsTest : public testing::CoreHarness {
 protected:
  JobRetention retention{core};
  std::vector<JobId> forgotten;

  // The job runs and completes at `now`; the retention hears of its end.
  void run_to_completion(const std::string& name) {
    pass();
    finish(name);
    retention.finished(*core.find_job(name), now, now, forgotten);
  }
};

// ------------------------------------------------------------------ names

TEST(GeneratedName, PrefixAndFiveCharactersOfKubernetesAlphabet) {
  const std::string name = generated_name("train-", 7, 0);
  ASSERT_EQ(name.size(), 6u + kGeneratedSuffixLength);
  EXPECT_EQ(name.substr(0, 6), "train-");
  for (char c : name.substr(6))
    EXPECT_NE(std::string_view("bcdfghjklmnpqrstvwxz2456789").find(c), std::string_view::npos)
        << name;
}

TEST(GeneratedName, SameInputsSameNameAndOtherEpochsOrAttemptsDiffer) {
  EXPECT_EQ(generated_name("job-", 1ULL << 40, 3), generated_name("job-", 1ULL << 40, 3));
  EXPECT_NE(generated_name("job-", 1ULL << 40, 3), generated_name("job-", 2ULL << 40, 3));
  EXPECT_NE(generated_name("job-", 1ULL << 40, 3), generated_name("job-", 1ULL << 40, 4));
}

TEST(GeneratedName, LongPrefixIsCutToFitSixtyThreeCharacters) {
  EXPECT_EQ(generated_name(std::string(70, 'a'), 1, 0).size(), 63u);
}

TEST_F(JobObjectsTest, GenerateNameGivesEachJobItsOwnNameAndTheSpecCarriesIt) {
  auto spec = std::make_shared<protocol::JobSpec>();
  spec->generate_name = "sweep-";
  std::set<std::string> names;
  for (int i = 0; i < 200; ++i) {
    JobRequest request = generated("sweep-");
    if (i == 0) request.spec = spec;
    const JobId id = submit(std::move(request));
    const std::string& name = core.job(id).name;
    EXPECT_EQ(name.rfind("sweep-", 0), 0u) << name;
    EXPECT_EQ(name.size(), 11u) << name;
    EXPECT_TRUE(names.insert(name).second) << "made twice: " << name;
    EXPECT_EQ(core.find_job(name), id);
  }
  const Job& first = core.job(0);
  ASSERT_TRUE(first.spec);
  EXPECT_EQ(first.spec->name, first.name) << "agents run it under the made name";
  EXPECT_TRUE(spec->name.empty()) << "the submitted spec is not changed";
}

TEST_F(JobObjectsTest, GeneratedNamesAreDeterministicPerHubEpoch) {
  SchedulerOptions options;
  options.first_dispatch_id = (3ULL << 40) + 1;
  SchedulerCore again(options), same(options);
  options.first_dispatch_id = (4ULL << 40) + 1;
  SchedulerCore next_epoch(options);
  const auto name_of = [](SchedulerCore& core) {
    return core.job(core.submit(generated("w-"), 0)).name;
  };
  const std::string name = name_of(again);
  EXPECT_EQ(name, name_of(same));
  EXPECT_NE(name, name_of(next_epoch));
}

TEST_F(JobObjectsTest, AGeneratedNameTakenByANamedJobIsSkipped) {
  SchedulerCore fresh;
  const std::string first_choice = fresh.job(fresh.submit(generated("x-"), 0)).name;
  SchedulerCore blocked;
  blocked.submit(gpu_job(first_choice, 1), 0);  // a user took the name the core would make first
  const std::string other = blocked.job(blocked.submit(generated("x-"), 0)).name;
  EXPECT_NE(other, first_choice);
  EXPECT_EQ(other.rfind("x-", 0), 0u);
  EXPECT_EQ(other.size(), first_choice.size());
}

// Issue 28: ended jobs the store keeps are not the core's to give.
TEST_F(JobObjectsTest, AGeneratedNameHeldElsewhereIsSkipped) {
  SchedulerCore fresh;
  const std::string first_choice = fresh.job(fresh.submit(generated("x-"), 0)).name;
  SchedulerCore blocked;
  blocked.set_names_held_elsewhere([&](std::string_view name) { return name == first_choice; });
  const std::string other = blocked.job(blocked.submit(generated("x-"), 0)).name;
  EXPECT_NE(other, first_choice);
  EXPECT_EQ(other.rfind("x-", 0), 0u);
}

// ------------------------------------------------------------------ forget

TEST_F(JobObjectsTest, AForgottenJobsNameAndSlotCanBeUsedAgain) {
  add_cluster("c", nodes(1, 8));
  const JobId old_id = submit(gpu_job("reused", 1));
  run_to_completion("reused");
  EXPECT_THROW(submit(gpu_job("reused", 1)), FieldError) << "taken while it is kept";

  core.forget(old_id);
  EXPECT_EQ(core.find_job("reused"), std::nullopt);
  EXPECT_TRUE(core.job(old_id).forgotten);
  EXPECT_TRUE(core.job(old_id).name.empty());
  EXPECT_FALSE(core.job(old_id).spec);

  const JobId new_id = submit(gpu_job("reused", 1));
  EXPECT_EQ(new_id, old_id) << "the slot is taken again: memory holds the jobs not forgotten";
  EXPECT_EQ(core.job_count(), 1u);
  EXPECT_FALSE(core.job(new_id).forgotten);
  EXPECT_EQ(core.find_job("reused"), new_id);
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"reused"});
}

TEST_F(JobObjectsTest, AJobThatHasNotEndedCannotBeForgotten) {
  add_cluster("c", nodes(1, 8));
  const JobId id = submit(gpu_job("busy", 1));
  EXPECT_THROW(core.forget(id), std::logic_error);
  pass();
  EXPECT_THROW(core.forget(id), std::logic_error);
  EXPECT_EQ(core.find_job("busy"), id);
}

// ------------------------------------------------------------------ retention

TEST_F(JobObjectsTest, TtlForgetsJobsInExpiryOrderNotSubmissionOrder) {
  add_cluster("c", nodes(1, 8));
  submit(with_ttl("long", 30'000));
  submit(with_ttl("short", 10'000));
  submit(gpu_job("kept", 1));
  pass();
  for (const char* name : {"long", "short", "kept"}) {
    finish(name);
    retention.finished(*core.find_job(name), now, now, forgotten);
  }
  EXPECT_EQ(retention.next_expiry(), now + 10'000);

  retention.expire(now + 9'999, forgotten);
  EXPECT_TRUE(forgotten.empty());
  retention.expire(now + 10'000, forgotten);
  ASSERT_EQ(forgotten.size(), 1u);
  EXPECT_EQ(core.find_job("short"), std::nullopt);
  EXPECT_EQ(retention.next_expiry(), now + 30'000);

  retention.expire(now + 1'000'000, forgotten);
  ASSERT_EQ(forgotten.size(), 2u);
  EXPECT_EQ(core.find_job("long"), std::nullopt);
  EXPECT_TRUE(core.find_job("kept").has_value()) << "no ttl: kept until deleted";
  EXPECT_EQ(retention.next_expiry(), kNever);
}

TEST_F(JobObjectsTest, TtlCountsFromTheFinishTimeGiven) {
  add_cluster("c", nodes(1, 8));
  const JobId id = submit(with_ttl("restored", 60'000));
  pass();
  finish("restored");
  // Finished 50 s before `now` (a restarted hub passes the stored time).
  retention.finished(id, now - 50'000, now, forgotten);
  EXPECT_EQ(retention.expiry_of(id), now + 10'000);
  retention.finished(id, now - 61'000, now, forgotten);
  EXPECT_EQ(forgotten, std::vector<JobId>{id}) << "already past its ttl: forgotten at once";
}

TEST_F(JobObjectsTest, TtlZeroForgetsAtOnce) {
  add_cluster("c", nodes(1, 8));
  const JobId id = submit(with_ttl("gone", 0));
  run_to_completion("gone");
  EXPECT_EQ(forgotten, std::vector<JobId>{id});
  EXPECT_EQ(core.find_job("gone"), std::nullopt);
}

// Issue 28: once its end is stored, the core keeps nothing of an ended job
// (get jobs reads it from the store), and its ttl is the store's to keep.
TEST_F(JobObjectsTest, AReleasedJobIsForgottenByTheCoreWithNothingLeftWaiting) {
  add_cluster("c", nodes(1, 8));
  const JobId id = submit(with_ttl("done", 60'000));
  run_to_completion("done");
  ASSERT_NE(retention.next_expiry(), kNever);
  EXPECT_TRUE(retention.release(id));
  EXPECT_TRUE(core.job(id).forgotten);
  EXPECT_EQ(core.find_job("done"), std::nullopt);
  EXPECT_EQ(retention.next_expiry(), kNever);
  EXPECT_TRUE(forgotten.empty()) << "released, not forgotten: the caller keeps its store row";
  EXPECT_FALSE(retention.release(id)) << "once";
}

TEST_F(JobObjectsTest, OnlyAnEndedJobNotBeingDeletedIsReleased) {
  add_cluster("c", nodes(1, 8));
  const JobId busy = submit(gpu_job("busy", 1));
  pass();
  EXPECT_FALSE(retention.release(busy));
  EXPECT_EQ(core.find_job("busy"), busy);
  retention.remove(busy, core.job(busy).dispatch, {0}, now, now + 5'000, forgotten);
  finish("busy");
  EXPECT_FALSE(retention.release(busy)) << "its delete forgets it, store row and all";
}

TEST_F(JobObjectsTest, DeletingAFinishedJobForgetsItAtOnce) {
  add_cluster("c", nodes(1, 8));
  const JobId id = submit(with_ttl("done", 60'000));
  run_to_completion("done");
  retention.remove(id, 0, {}, now, now + 5'000, forgotten);
  EXPECT_EQ(forgotten, std::vector<JobId>{id});
  EXPECT_EQ(retention.next_expiry(), kNever) << "its ttl went with it";
}

TEST_F(JobObjectsTest, DeletingAPendingJobForgetsItWhenItsCancelEndsIt) {
  const JobId id = submit(gpu_job("waits", 1));
  retention.remove(id, 0, {}, now, now + 5'000, forgotten);
  EXPECT_TRUE(forgotten.empty()) << "not ended yet";
  core.cancel("waits", now);
  retention.finished(id, now, now, forgotten);
  EXPECT_EQ(forgotten, std::vector<JobId>{id});
}

TEST_F(JobObjectsTest, ADeletedRunningJobIsForgottenOnceEveryPartStopped) {
  const ClusterIndex east = add_cluster("east", nodes(1, 8));
  const ClusterIndex west = add_cluster("west", nodes(1, 8));
  const JobId id = submit(gpu_job("runs", 1));
  pass();
  const DispatchId dispatch = core.job(id).dispatch;
  retention.remove(id, dispatch, {east, west}, now, now + 5'000, forgotten);
  core.cancel("runs", now);
  retention.finished(id, now, now, forgotten);
  EXPECT_TRUE(forgotten.empty()) << "its replicas still stop";
  EXPECT_EQ(retention.stopping_on(east), std::vector<DispatchId>{dispatch});

  retention.part_stopped(dispatch, east, now, forgotten);
  EXPECT_TRUE(forgotten.empty());
  EXPECT_TRUE(core.find_job("runs").has_value()) << "the name stays taken meanwhile";
  retention.cluster_gone(west, now, forgotten);
  EXPECT_EQ(forgotten, std::vector<JobId>{id});
  EXPECT_EQ(retention.next_expiry(), kNever);
}

TEST_F(JobObjectsTest, ADeletedJobWhosePartsNeverAnswerIsForgottenAtItsDeadline) {
  const ClusterIndex c = add_cluster("c", nodes(1, 8));
  const JobId id = submit(gpu_job("silent", 1));
  pass();
  retention.remove(id, core.job(id).dispatch, {c}, now, now + 5'000, forgotten);
  core.cancel("silent", now);
  retention.finished(id, now, now, forgotten);
  retention.expire(now + 4'999, forgotten);
  EXPECT_TRUE(forgotten.empty());
  retention.expire(now + 5'000, forgotten);
  EXPECT_EQ(forgotten, std::vector<JobId>{id});
  EXPECT_TRUE(retention.stopping_on(c).empty());
}

}  // namespace
}  // namespace gantry::hub
