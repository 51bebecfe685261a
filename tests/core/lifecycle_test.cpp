// Volcano lifecycle policies in the core: which policy an event resolves to,
// what each action does to the job and its parts, how restarts are counted
// against maxRetry and held back by their backoff, and the defaults when no
// policy matches.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hub/job_lifecycle.hpp"
#include "hub/job_request.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub {
namespace {

using testing::nodes;

protocol::LifecyclePolicy on_event(std::string event, std::string action,
                                   std::int64_t timeout_ms = 0) {
  protocol::LifecyclePolicy policy;
  policy.events = {std::move(event)};
  policy.action = std::move(action);
  policy.timeout_ms = timeout_ms;
  return policy;
}

protocol::LifecyclePolicy on_exit_code(std::int32_t code, std::string action) {
  protocol::LifecyclePolicy policy;
  policy.exit_code = code;
  policy.action = std::move(action);
  return policy;
}

protocol::TaskSpec task(std::string name, std::int32_t replicas, std::int64_t gpus_each = 8) {
  protocol::TaskSpec spec;
  spec.name = std::move(name);
  spec.replicas = replicas;
  protocol::ContainerSpec container;
  container.name = "main";
  container.requests = {{"nvidia.com/gpu", gpus_each * 1000}, {"cpu", 1000}};
  spec.containers.push_back(container);
  return spec;
}

// ---------------------------------------------------------------- the resolver

TEST(LifecycleResolver, TaskPoliciesOverrideTheJobsForTheirOwnEventsOnly) {
  protocol::JobSpec spec;
  spec.tasks = {task("master", 1), task("worker", 2)};
  spec.policies = {on_event("PodFailed", "AbortJob")};
  spec.tasks[1].policies = {on_event("PodFailed", "RestartJob")};
  EXPECT_EQ(JobPolicies(spec).resolve(1, LifecycleEvent::kPodFailed, 1)->action,
            LifecycleAction::kRestartJob);
  EXPECT_EQ(JobPolicies(spec).resolve(0, LifecycleEvent::kPodFailed, 1)->action,
            LifecycleAction::kAbortJob);
  EXPECT_EQ(JobPolicies(spec).resolve(-1, LifecycleEvent::kPodFailed, 1)->action,
            LifecycleAction::kAbortJob);
  EXPECT_FALSE(JobPolicies(spec).resolve(1, LifecycleEvent::kPodEvicted));
}

TEST(LifecycleResolver, AnExitCodePolicyMatchesOnlyAPodFailedWithThatCode) {
  protocol::JobSpec spec;
  spec.tasks = {task("worker", 2)};
  spec.policies = {on_exit_code(3, "RestartJob"), on_event("PodFailed", "AbortJob")};
  EXPECT_EQ(JobPolicies(spec).resolve(0, LifecycleEvent::kPodFailed, 3)->action,
            LifecycleAction::kRestartJob);
  EXPECT_EQ(JobPolicies(spec).resolve(0, LifecycleEvent::kPodFailed, 4)->action,
            LifecycleAction::kAbortJob);
  spec.policies = {on_exit_code(3, "RestartJob")};
  EXPECT_FALSE(JobPolicies(spec).resolve(0, LifecycleEvent::kTaskFailed, 3));
}

TEST(LifecycleResolver, StarMatchesEveryEvent) {
  protocol::JobSpec spec;
  spec.tasks = {task("worker", 2)};
  spec.policies = {on_event("*", "TerminateJob", 5'000)};
  for (LifecycleEvent event :
       {LifecycleEvent::kPodFailed, LifecycleEvent::kPodEvicted, LifecycleEvent::kTaskCompleted,
        LifecycleEvent::kTaskFailed, LifecycleEvent::kJobUnknown}) {
    const auto found = JobPolicies(spec).resolve(0, event);
    ASSERT_TRUE(found) << event_name(event);
    EXPECT_EQ(found->action, LifecycleAction::kTerminateJob);
    EXPECT_EQ(found->timeout_ms, 5'000);
  }
  EXPECT_FALSE(JobPolicies(spec).resolve(0, LifecycleEvent::kNone));
}

TEST(LifecycleResolver, APolicyListingOnlyUnknownEventsMatchesNoneEvenWithAnExitCode) {
  protocol::JobSpec spec;
  spec.tasks = {task("worker", 2)};
  protocol::LifecyclePolicy policy = on_event("NoSuchEvent", "AbortJob");
  policy.exit_code = 3;
  spec.policies = {policy};
  EXPECT_FALSE(JobPolicies(spec).resolve(0, LifecycleEvent::kPodFailed, 3));
}

TEST(LifecycleResolver, ThePendingPolicyIsTheFirstTasksWithATimeoutElseTheJobs) {
  protocol::JobSpec spec;
  spec.tasks = {task("master", 1), task("worker", 2)};
  spec.policies = {on_event("PodPending", "AbortJob", 60'000)};
  EXPECT_EQ(JobPolicies(spec).pending()->timeout_ms, 60'000);
  spec.tasks[1].policies = {on_event("PodPending", "TerminateJob", 5'000)};
  EXPECT_EQ(JobPolicies(spec).pending()->action, LifecycleAction::kTerminateJob);
  spec.tasks[1].policies = {on_event("PodPending", "TerminateJob")};  // no timeout: never acts
  EXPECT_EQ(JobPolicies(spec).pending()->action, LifecycleAction::kAbortJob);
  spec.policies.clear();
  EXPECT_FALSE(JobPolicies(spec).pending());
}

TEST(LifecycleResolver, MaxRetryIsTheTasksWhenItGivesOneElseTheJobs) {
  protocol::JobSpec spec;
  spec.tasks = {task("master", 1), task("worker", 2)};
  spec.max_retry = 3;
  spec.tasks[1].max_retry = 5;
  EXPECT_EQ(JobPolicies(spec).max_retries(0), 3);
  EXPECT_EQ(JobPolicies(spec).max_retries(1), 5);
  EXPECT_EQ(JobPolicies(spec).max_retries(-1), 3);
}

TEST(LifecycleResolver, TheBackoffDoublesPerRetryUpToItsCap) {
  EXPECT_EQ(restart_backoff_ms(10'000, 1), 10'000);
  EXPECT_EQ(restart_backoff_ms(10'000, 2), 20'000);
  EXPECT_EQ(restart_backoff_ms(10'000, 3), 40'000);
  EXPECT_EQ(restart_backoff_ms(10'000, 30), kMaxRestartBackoffMs);
}

// ---------------------------------------------------------------- in the core

class LifecycleTest : public testing::CoreHarness {
 protected:
  LifecycleTest() : CoreHarness(options()) {}
  static SchedulerOptions options() {
    SchedulerOptions options;
    options.restart_backoff_ms = 1'000;
    return options;
  }

  // A job of `tasks` whose JobSpec carries `policies` (job level).
  JobId submit_spec(protocol::JobSpec spec, bool split = false) {
    const auto shared = std::make_shared<protocol::JobSpec>(std::move(spec));
    JobRequest request = make_job_request(shared);
    request.split_allowed = split;
    return submit(std::move(request));
  }
  protocol::JobSpec spec_of(const std::string& name, std::vector<protocol::TaskSpec> tasks,
                            std::vector<protocol::LifecyclePolicy> policies = {}) {
    protocol::JobSpec spec;
    spec.name = name;
    spec.tasks = std::move(tasks);
    spec.policies = std::move(policies);
    return spec;
  }

  ClusterIndex cluster_named(const std::string& name) const { return *core.find_cluster(name); }
  std::vector<ClusterIndex> part_clusters(const std::string& name) {
    return core.find_dispatch(job(name).dispatch)->clusters();
  }
  // The agent of `cluster` reports the part failed by `task`-`replica`.
  PartEnd fail(const std::string& name, ClusterIndex cluster, const std::string& failed_task,
               std::int32_t replica = 0, std::int32_t exit_code = 1) {
    const DispatchId dispatch = job(name).dispatch;
    core.note_part_failure(dispatch, cluster, failed_task, replica, exit_code);
    return core.part_finished(dispatch, cluster, JobPhase::kFailed,
                              "replica " + failed_task + "-" + std::to_string(replica) +
                                  " exited with code " + std::to_string(exit_code),
                              now);
  }
  PartEnd fail_only_part(const std::string& name, const std::string& failed_task = "worker",
                         std::int32_t exit_code = 1) {
    return fail(name, part_clusters(name).front(), failed_task, 0, exit_code);
  }
  std::vector<LifecycleStep> steps() {
    std::vector<LifecycleStep> out;
    core.take_lifecycle_steps(out);
    return out;
  }
};

TEST_F(LifecycleTest, PodFailedRestartJobRequeuesTheGangAfterItsBackoff) {
  add_cluster("east", 2, 8);
  submit_spec(spec_of("train", {task("worker", 2)}, {on_event("PodFailed", "RestartJob")}));
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"train"});
  const std::uint32_t first_epoch = job("train").epoch;

  EXPECT_EQ(fail_only_part("train").kind, PartEnd::Kind::kLifecycle);
  const std::vector<LifecycleStep> taken = steps();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].phase, JobPhase::kPending);
  EXPECT_NE(taken[0].text.find("PodFailed (task worker, replica 0, exit code 1): RestartJob"),
            std::string::npos)
      << taken[0].text;
  EXPECT_EQ(job("train").phase, JobPhase::kPending);
  EXPECT_EQ(job("train").history().retries, 1);
  EXPECT_EQ(job("train").history().last_action, LifecycleAction::kRestartJob);
  EXPECT_EQ(job("train").history().last_exit_code, 1);
  EXPECT_EQ(core.next_backoff_end(now), now + 1'000) << "the hub wakes a pass when it ends";

  now += 999;
  EXPECT_TRUE(pass().dispatched.empty()) << "not placed before its backoff ends";
  EXPECT_NE(core.reason_text(job("train")).find("restart backoff"), std::string::npos);
  now += 1;
  EXPECT_EQ(pass().dispatched, std::vector<std::string>{"train"});
  EXPECT_EQ(job("train").epoch, first_epoch + 1) << "a new placement, a new epoch";
  EXPECT_EQ(job("train").phase, JobPhase::kRunning);
}

TEST_F(LifecycleTest, RestartsCountAgainstMaxRetryThenTheJobFails) {
  add_cluster("east", 2, 8);
  protocol::JobSpec spec =
      spec_of("flaky", {task("worker", 1)}, {on_event("PodFailed", "RestartJob")});
  spec.max_retry = 2;
  submit_spec(spec);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    ASSERT_EQ(pass().dispatched, std::vector<std::string>{"flaky"}) << attempt;
    fail_only_part("flaky", "worker", 7);
    EXPECT_EQ(job("flaky").history().retries, attempt);
    now += 10'000;  // past any backoff
  }
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"flaky"});
  fail_only_part("flaky", "worker", 7);
  EXPECT_EQ(job("flaky").phase, JobPhase::kFailed);
  EXPECT_EQ(job("flaky").history().retries, 2);
  EXPECT_EQ(job("flaky").history().message,
            "failed after 2 retries: replica worker-0 exited with code 7");
  const std::vector<LifecycleStep> taken = steps();
  ASSERT_FALSE(taken.empty());
  EXPECT_EQ(taken.back().phase, JobPhase::kFailed);
}

TEST_F(LifecycleTest, TheBackoffDoublesWithEachRetry) {
  add_cluster("east", 2, 8);
  submit_spec(spec_of("flaky", {task("worker", 1)}, {on_event("PodFailed", "RestartJob")}));
  pass();
  fail_only_part("flaky");
  EXPECT_EQ(job("flaky").history().restart_at, now + 1'000);
  now += 1'000;
  pass();
  fail_only_part("flaky");
  EXPECT_EQ(job("flaky").history().restart_at, now + 2'000);
}

TEST_F(LifecycleTest, APolicyTimeoutDelaysTheRestartInsteadOfTheBackoff) {
  add_cluster("east", 2, 8);
  submit_spec(spec_of("slow", {task("worker", 1)}, {on_event("PodFailed", "RestartJob", 60'000)}));
  pass();
  fail_only_part("slow");
  EXPECT_EQ(job("slow").history().restart_at, now + 60'000);
}

TEST_F(LifecycleTest, ATasksMaxRetryAppliesToItsOwnFailures) {
  add_cluster("east", 2, 8);
  protocol::JobSpec spec = spec_of("mixed", {task("master", 1), task("worker", 1)},
                                   {on_event("PodFailed", "RestartJob")});
  spec.max_retry = 3;
  spec.tasks[0].max_retry = 1;
  submit_spec(spec);
  pass();
  fail_only_part("mixed", "master");
  EXPECT_EQ(job("mixed").history().retries, 1);
  now += 10'000;
  pass();
  fail_only_part("mixed", "master");
  EXPECT_EQ(job("mixed").phase, JobPhase::kFailed) << "master's maxRetry 1 was reached";
}

TEST_F(LifecycleTest, WithoutAPolicyAFailedReplicaFailsTheJobAsBefore) {
  add_cluster("east", 2, 8);
  submit_spec(spec_of("plain", {task("worker", 2)}));
  pass();
  EXPECT_EQ(fail_only_part("plain").kind, PartEnd::Kind::kJobEnded);
  EXPECT_EQ(job("plain").phase, JobPhase::kFailed);
  EXPECT_EQ(job("plain").history().retries, 0);
  EXPECT_EQ(job("plain").history().last_event, LifecycleEvent::kPodFailed);
  EXPECT_EQ(job("plain").history().last_action, LifecycleAction::kNone);
  EXPECT_TRUE(steps().empty());
}

TEST_F(LifecycleTest, TaskFailedActsWhenNoPodFailedPolicyMatches) {
  add_cluster("east", 2, 8);
  protocol::JobSpec spec = spec_of("tf", {task("worker", 2)}, {on_event("TaskFailed", "AbortJob")});
  submit_spec(spec);
  pass();
  EXPECT_EQ(fail_only_part("tf").kind, PartEnd::Kind::kLifecycle);
  EXPECT_EQ(job("tf").phase, JobPhase::kAborted);
  EXPECT_EQ(job("tf").history().last_event, LifecycleEvent::kTaskFailed);
}

TEST_F(LifecycleTest, MinSuccessDecidesCompletedOnceEveryReplicaEnded) {
  add_cluster("east", 4, 8);
  protocol::JobSpec spec = spec_of("batch", {task("worker", 3)});
  spec.min_success = 2;
  submit_spec(spec);
  pass();
  const DispatchId dispatch = job("batch").dispatch;
  core.update_tasks(dispatch, {protocol::TaskStatus{"worker", 0, 0, 2, 1}});
  fail_only_part("batch");
  EXPECT_EQ(job("batch").phase, JobPhase::kCompleted) << "2 of 3 succeeded, minSuccess 2";
}

TEST_F(LifecycleTest, MinSuccessNotReachedFails) {
  add_cluster("east", 4, 8);
  protocol::JobSpec spec = spec_of("batch", {task("worker", 3)});
  spec.min_success = 3;
  submit_spec(spec);
  pass();
  core.update_tasks(job("batch").dispatch, {protocol::TaskStatus{"worker", 0, 0, 2, 1}});
  fail_only_part("batch");
  EXPECT_EQ(job("batch").phase, JobPhase::kFailed);
}

// A split gang: one part fails, the other must stop before anything moves on.
class SplitLifecycleTest : public LifecycleTest {
 protected:
  void SetUp() override {
    add_cluster("a", 2, 8);
    add_cluster("b", 1, 8);
  }
};

TEST_F(SplitLifecycleTest, ARestartStopsEveryOtherPartFirst) {
  submit_spec(spec_of("big", {task("worker", 3)}, {on_event("PodFailed", "RestartJob")}), true);
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"big"});
  ASSERT_EQ(part_clusters("big").size(), 2u);
  const ClusterIndex failed = part_clusters("big")[0];
  const ClusterIndex other = part_clusters("big")[1];
  const DispatchId dispatch = job("big").dispatch;

  fail("big", failed, "worker");
  EXPECT_EQ(job("big").phase, JobPhase::kRestarting);
  std::vector<LifecycleStep> taken = steps();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].stop, std::vector<ClusterIndex>{other});
  EXPECT_EQ(taken[0].dispatch, dispatch);
  EXPECT_TRUE(pass().dispatched.empty()) << "nothing is placed while a part still runs";

  EXPECT_EQ(core.part_finished(dispatch, other, JobPhase::kFailed, "cancelled", now).kind,
            PartEnd::Kind::kLifecycle);
  EXPECT_EQ(job("big").phase, JobPhase::kPending);
  EXPECT_EQ(core.find_dispatch(dispatch), nullptr);
  taken = steps();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_NE(taken[0].text.find("every part stopped"), std::string::npos);
}

TEST_F(SplitLifecycleTest, TerminateJobEndsTerminatedOnceEveryPartStopped) {
  submit_spec(spec_of("big", {task("worker", 3)}, {on_event("PodFailed", "TerminateJob")}), true);
  pass();
  const ClusterIndex other = part_clusters("big")[1];
  const DispatchId dispatch = job("big").dispatch;
  fail("big", part_clusters("big")[0], "worker");
  EXPECT_EQ(job("big").phase, JobPhase::kTerminating);
  steps();
  core.part_finished(dispatch, other, JobPhase::kFailed, "cancelled", now);
  EXPECT_EQ(job("big").phase, JobPhase::kTerminated);
  EXPECT_TRUE(is_terminal(job("big").phase));
  EXPECT_EQ(steps().back().phase, JobPhase::kTerminated);
}

TEST_F(SplitLifecycleTest, TaskCompletedCompleteJobStopsTheOtherTasksOnEveryPart) {
  // master (1) + worker (2): three 8-GPU replicas over a (2 nodes) and b (1 node).
  submit_spec(spec_of("mw", {task("master", 1), task("worker", 2)},
                      {on_event("TaskCompleted", "CompleteJob")}),
              true);
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"mw"});
  const DispatchId dispatch = job("mw").dispatch;
  const std::vector<ClusterIndex> parts = part_clusters("mw");
  ASSERT_EQ(parts.size(), 2u);
  // The part holding the master reports it succeeded; the workers still run.
  const DispatchPart& first = *core.find_dispatch(dispatch)->part_on(parts[0]);
  ASSERT_EQ(first.task_replicas[0], 1) << "the master is in the first part";
  core.update_tasks(dispatch, parts[0],
                    {protocol::TaskStatus{"master", 0, 0, 1, 0},
                     protocol::TaskStatus{"worker", 0, first.task_replicas[1], 0, 0}});
  core.check_tasks_completed(dispatch, now);
  EXPECT_EQ(job("mw").phase, JobPhase::kCompleting);
  EXPECT_EQ(job("mw").history().last_event, LifecycleEvent::kTaskCompleted);
  const std::vector<LifecycleStep> taken = steps();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].stop, parts) << "every part still running is stopped";

  core.part_finished(dispatch, parts[0], JobPhase::kFailed, "cancelled", now);
  EXPECT_EQ(job("mw").phase, JobPhase::kCompleting);
  core.part_finished(dispatch, parts[1], JobPhase::kFailed, "cancelled", now);
  EXPECT_EQ(job("mw").phase, JobPhase::kCompleted);
}

TEST_F(SplitLifecycleTest, TaskCompletedWithoutAPolicyChangesNothing) {
  submit_spec(
      spec_of("mw", {task("master", 1), task("worker", 2)}, {on_event("PodFailed", "RestartJob")}),
      true);
  pass();
  const DispatchId dispatch = job("mw").dispatch;
  for (ClusterIndex c : part_clusters("mw"))
    core.update_tasks(dispatch, c, {protocol::TaskStatus{"master", 0, 0, 1, 0}});
  core.check_tasks_completed(dispatch, now);
  EXPECT_EQ(job("mw").phase, JobPhase::kRunning);
  EXPECT_TRUE(steps().empty());
}

// ---------------------------------------------------------------- evictions and lost clusters

class EvictionLifecycleTest : public LifecycleTest {
 protected:
  // `low` fills the one cluster; a higher-priority job of the same queue preempts it.
  void preempt_low(std::vector<protocol::LifecyclePolicy> policies) {
    add_cluster("east", 1, 8);
    submit_spec(spec_of("low", {task("worker", 1)}, std::move(policies)));
    ASSERT_EQ(pass().dispatched, std::vector<std::string>{"low"});
    protocol::JobSpec high = spec_of("high", {task("worker", 1)});
    high.priority = 100;
    const auto shared = std::make_shared<protocol::JobSpec>(high);
    JobRequest request = make_job_request(shared);
    request.priority = 100;
    submit(std::move(request));
    const testing::PassNames decided = pass();
    ASSERT_EQ(decided.evicted, std::vector<std::string>{"low"});
    ASSERT_EQ(decided.dispatched, std::vector<std::string>{"high"});
  }
};

TEST_F(EvictionLifecycleTest, PodEvictedWithoutAPolicyRequeuesAsBefore) {
  preempt_low({on_event("PodFailed", "AbortJob")});
  EXPECT_EQ(job("low").phase, JobPhase::kPending);
  EXPECT_EQ(job("low").history().retries, 0);
  EXPECT_TRUE(steps().empty());
}

TEST_F(EvictionLifecycleTest, PodEvictedAbortJobEndsTheJob) {
  preempt_low({on_event("PodEvicted", "AbortJob")});
  EXPECT_EQ(job("low").phase, JobPhase::kAborted);
  const std::vector<LifecycleStep> taken = steps();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].phase, JobPhase::kAborted);
  EXPECT_TRUE(taken[0].stop.empty()) << "the eviction decision stops it already";
}

TEST_F(EvictionLifecycleTest, PodEvictedRestartJobCountsARetry) {
  preempt_low({on_event("PodEvicted", "RestartJob")});
  EXPECT_EQ(job("low").phase, JobPhase::kPending);
  EXPECT_EQ(job("low").history().retries, 1);
  EXPECT_EQ(job("low").history().last_event, LifecycleEvent::kPodEvicted);
}

TEST_F(LifecycleTest, JobUnknownWithoutAPolicyRequeuesAsBefore) {
  add_cluster("east", 1, 8);
  submit_spec(spec_of("j", {task("worker", 1)}));
  pass();
  core.cluster_lost(cluster_named("east"), now);
  EXPECT_EQ(job("j").phase, JobPhase::kPending);
  EXPECT_EQ(job("j").requeues, 1);
}

TEST_F(LifecycleTest, JobUnknownTerminateJobEndsTheJob) {
  add_cluster("east", 1, 8);
  submit_spec(spec_of("j", {task("worker", 1)}, {on_event("JobUnknown", "TerminateJob")}));
  pass();
  core.cluster_lost(cluster_named("east"), now);
  EXPECT_EQ(job("j").phase, JobPhase::kTerminated);
  EXPECT_EQ(job("j").history().last_event, LifecycleEvent::kJobUnknown);
  ASSERT_EQ(steps().size(), 1u);
}

TEST_F(LifecycleTest, PodPendingTimeoutActsOnAJobWaitingPastIt) {
  add_cluster("east", 1, 8);
  submit_spec(spec_of("huge", {task("worker", 4)}, {on_event("PodPending", "AbortJob", 30'000)}));
  EXPECT_TRUE(pass().dispatched.empty());
  EXPECT_EQ(core.next_backoff_end(now), now + 30'000) << "a pass is woken when it runs out";
  now += 29'999;
  pass();
  EXPECT_EQ(job("huge").phase, JobPhase::kPending);
  now += 1;
  pass();
  EXPECT_EQ(job("huge").phase, JobPhase::kAborted);
  EXPECT_EQ(job("huge").history().last_event, LifecycleEvent::kPodPending);
  EXPECT_EQ(core.pending_count(), 0u);
  EXPECT_EQ(steps().size(), 1u);
}

TEST_F(LifecycleTest, APlacedJobsPodPendingTimeoutNeverFires) {
  add_cluster("east", 1, 8);
  submit_spec(spec_of("small", {task("worker", 1)}, {on_event("PodPending", "AbortJob", 30'000)}));
  ASSERT_EQ(pass().dispatched, std::vector<std::string>{"small"});
  EXPECT_EQ(core.next_backoff_end(now), 0);
  now += 60'000;
  pass();
  EXPECT_EQ(job("small").phase, JobPhase::kRunning);
}

TEST_F(LifecycleTest, CancellingAJobInItsRestartBackoffAbortsIt) {
  add_cluster("east", 1, 8);
  submit_spec(spec_of("r", {task("worker", 1)}, {on_event("PodFailed", "RestartJob")}));
  pass();
  fail_only_part("r");
  EXPECT_FALSE(core.cancel("r", now).has_value());
  EXPECT_EQ(job("r").phase, JobPhase::kAborted);
  now += 10'000;
  EXPECT_TRUE(pass().dispatched.empty());
}

}  // namespace
}  // namespace gantry::hub
