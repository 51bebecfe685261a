// Deterministic tests of the hub's actors under CAF's test coordinator: time
// moves only when a test advances it, so liveness and answer timeouts are
// checked tick by tick. Frames go to a recording sink instead of sockets.
#include "actors/hub_actors.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <caf/all.hpp>
#include <chrono>
#include <memory>

#include "actors/job_store.hpp"
#include "test_support.hpp"

namespace gantry::actors {
namespace {

using namespace std::chrono_literals;
using testing::decode_as;
using testing::frames_of;
using testing::job_yaml;
using testing::usage_report;

constexpr hub::TimeMs kStartMs = 1'700'000'000'000;
constexpr auto kHeartbeat = 1000ms;
constexpr std::int32_t kLiveness = 3;

class HubActorsTest : public ::testing::Test {
 protected:
  static caf::actor_system_config& init(caf::actor_system_config& config) {
    register_hub_message_types(config);
    config.set("scheduler.policy", caf::atom("testing"));
    config.set("logger.file-verbosity", caf::atom("quiet"));
    return config;
  }

  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    start();
  }

  void TearDown() override { stop(); }

  // With run_now false nothing has run yet: a test may reorder what follows.
  void start(bool run_now = true) {
    HubActorsConfig config;
    config.sink = &sink;
    config.clock = [this] { return now_ms(); };
    config.heartbeat_interval = kHeartbeat;
    config.liveness = kLiveness;
    config.hub_epoch = 42;
    config.store = std::make_shared<JobStore>(dir.path());
    actors = spawn_hub_actors(system, config);
    router = std::make_unique<InboundRouter>(actors);
    if (run_now) sched.run();
  }

  void stop() {
    stop_hub_actors(actors);
    sched.run();
    router.reset();
    actors = {};
  }

  hub::TimeMs now_ms() {
    return kStartMs + std::chrono::duration_cast<std::chrono::milliseconds>(
                          sched.clock().now().time_since_epoch())
                          .count();
  }

  // One heartbeat interval passes; every actor handles what it triggered.
  void tick() {
    sched.advance_time(kHeartbeat);
    sched.run();
  }

  void from_agent(const std::string& peer, InboundBody body) {
    router->on_message(InboundMessage{Channel::kAgents, peer, ++seq_, std::move(body)});
    sched.run();
  }

  // A cluster agent says Hello and reports its nodes.
  void register_cluster(const std::string& cluster, int nodes, int gpus_per_node) {
    from_agent(peer_of(cluster), protocol::Hello{cluster, {}, "test", {}, {}});
    from_agent(peer_of(cluster), usage_report(cluster, nodes, gpus_per_node));
  }

  static std::string peer_of(const std::string& cluster) { return "agent/" + cluster; }

  // Sends an admin request and returns the reply addressed to it.
  template <class Reply, class Request>
  Reply ask(Request request) {
    const std::string peer = "console-" + std::to_string(++seq_);
    const std::uint64_t seq = seq_;
    router->on_message(InboundMessage{Channel::kAdmin, peer, seq, std::move(request)});
    sched.run();
    std::vector<OutboundFrame> replies;
    for (OutboundFrame& frame : sink.take()) {
      if (frame.peer == peer) {
        replies.push_back(frame);
      } else {
        unclaimed_.push_back(std::move(frame));
      }
    }
    if (replies.size() != 1)
      throw std::runtime_error(peer + " got " + std::to_string(replies.size()) + " replies");
    EXPECT_EQ(replies[0].channel, Channel::kAdmin);
    std::uint64_t reply_seq = 0;
    Reply reply = decode_as<Reply>(replies[0].frame, &reply_seq);
    EXPECT_EQ(reply_seq, seq);
    return reply;
  }

  protocol::SubmitJobReply submit(const std::string& yaml) {
    return ask<protocol::SubmitJobReply>(protocol::SubmitJobRequest{yaml});
  }

  protocol::JobInfo job(const std::string& name) {
    const auto reply = ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name});
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.job;
  }

  std::vector<std::string> job_events(const std::string& name) {
    return ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name}).events;
  }

  bool cluster_ready(const std::string& name) {
    const auto reply = ask<protocol::DescribeReply>(protocol::DescribeRequest{"cluster", name});
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.cluster.ready;
  }

  // Frames not yet looked at, including those set aside by ask().
  std::vector<OutboundFrame> sent() {
    std::vector<OutboundFrame> frames = std::exchange(unclaimed_, {});
    for (OutboundFrame& frame : sink.take()) frames.push_back(std::move(frame));
    return frames;
  }

  // The one Dispatch sent since the last look; fails the test otherwise.
  std::pair<std::string, protocol::Dispatch> only_dispatch() {
    const auto dispatches = frames_of<protocol::Dispatch>(sent());
    if (dispatches.size() != 1)
      throw std::runtime_error(std::to_string(dispatches.size()) + " dispatches sent");
    return dispatches[0];
  }

  static bool contains(const std::vector<std::string>& events, const std::string& text) {
    return std::any_of(events.begin(), events.end(), [&](const std::string& event) {
      return event.find(text) != std::string::npos;
    });
  }

  testing::TempDir dir;
  testing::RecordingSink sink;  // outlives the actor system
  caf::actor_system_config config_;
  caf::actor_system system{init(config_)};
  caf::scheduler::test_coordinator& sched =
      dynamic_cast<caf::scheduler::test_coordinator&>(system.scheduler());
  HubActors actors;
  std::unique_ptr<InboundRouter> router;

 private:
  std::uint64_t seq_ = 0;
  std::vector<OutboundFrame> unclaimed_;
};

TEST_F(HubActorsTest, HelloIsWelcomedWithTheHubsHeartbeatSettings) {
  from_agent("agent/east", protocol::Hello{"east", {}, "test", {}, {}});
  const auto welcomes = frames_of<protocol::Welcome>(sent());
  ASSERT_EQ(welcomes.size(), 1u);
  EXPECT_EQ(welcomes[0].first, "agent/east");
  EXPECT_EQ(welcomes[0].second.hub_epoch, 42u);
  EXPECT_EQ(welcomes[0].second.heartbeat_interval_ms, 1000);
  EXPECT_EQ(welcomes[0].second.heartbeat_liveness, kLiveness);
}

TEST_F(HubActorsTest, FittingJobProducesExactlyOneDispatchToTheRightAgent) {
  register_cluster("east", 2, 0);  // no GPUs
  register_cluster("west", 2, 8);
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 2, 4)).ok);

  const auto [peer, dispatch] = only_dispatch();
  EXPECT_EQ(peer, "agent/west");
  EXPECT_NE(dispatch.dispatch_id, 0u);
  EXPECT_EQ(dispatch.job.name, "train");
  ASSERT_EQ(dispatch.job.tasks.size(), 1u);
  EXPECT_EQ(dispatch.job.tasks[0].containers[0].image, "busybox");
  EXPECT_EQ(dispatch.task_replicas, (std::map<std::string, std::int32_t>{{"worker", 2}}));
  EXPECT_EQ(job("train").phase, "Pending");  // dispatched, not yet admitted
}

TEST_F(HubActorsTest, AdmitThenCompletedMakesTheJobCompleted) {
  register_cluster("west", 2, 8);
  ASSERT_TRUE(submit(job_yaml("train", 2, 4)).ok);
  const auto dispatch = only_dispatch().second;

  from_agent("agent/west", protocol::Admit{dispatch.dispatch_id, "train"});
  EXPECT_EQ(job("train").phase, "Running");
  EXPECT_EQ(job("train").clusters, std::vector<std::string>{"west"});

  from_agent("agent/west",
             protocol::StatusUpdate{
                 dispatch.dispatch_id, "train", "Completed", {{"worker", 0, 0, 2, 0}}, ""});
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Completed");
  ASSERT_EQ(info.tasks.size(), 1u);
  EXPECT_EQ(info.tasks[0].succeeded, 2);
  EXPECT_GT(info.finished_ms, 0);
  const auto events = job_events("train");
  EXPECT_TRUE(contains(events, "dispatched to west"));
  EXPECT_TRUE(contains(events, "admitted by west"));
  EXPECT_TRUE(contains(events, "Completed on west"));
}

TEST_F(HubActorsTest, RunningStatusCountsAsAdmitWhenTheAdmitWasLost) {
  register_cluster("west", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 1)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/west",
             protocol::StatusUpdate{
                 dispatch.dispatch_id, "train", "Running", {{"worker", 0, 1, 0, 0}}, ""});
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, FailedStatusMakesTheJobFailedWithTheAgentsMessage) {
  register_cluster("west", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 1)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/west", protocol::Admit{dispatch.dispatch_id, "train"});
  from_agent(
      "agent/west",
      protocol::StatusUpdate{
          dispatch.dispatch_id, "train", "Failed", {{"worker", 0, 0, 0, 1}}, "worker-0 exited 3"});
  EXPECT_EQ(job("train").phase, "Failed");
  EXPECT_TRUE(contains(job_events("train"), "worker-0 exited 3"));
}

TEST_F(HubActorsTest, SilentClusterBecomesNotReadyAfterIntervalTimesLivenessAndItsJobIsRequeued) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/east", protocol::Admit{dispatch.dispatch_id, "train"});
  ASSERT_EQ(job("train").phase, "Running");

  for (int i = 1; i < kLiveness; ++i) {
    tick();
    EXPECT_TRUE(cluster_ready("east")) << "after " << i << " silent interval(s)";
    EXPECT_EQ(job("train").phase, "Running");
  }
  tick();
  EXPECT_FALSE(cluster_ready("east"));
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Pending");
  EXPECT_EQ(info.requeues, 1);
  EXPECT_TRUE(contains(job_events("train"), "requeued: cluster east stopped answering"));

  // The expired session is gone: the agent is told to say Hello again.
  sent();
  from_agent("agent/east", protocol::Heartbeat{"east", 42});
  const auto errors = frames_of<protocol::ErrorReply>(sent());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].second.code, "not_registered");
}

TEST_F(HubActorsTest, HeartbeatsKeepAClusterReadyAndAreEchoed) {
  register_cluster("east", 1, 8);
  sent();
  for (int i = 0; i < 3 * kLiveness; ++i) {
    tick();
    from_agent("agent/east", protocol::Heartbeat{"east", 42});
  }
  EXPECT_TRUE(cluster_ready("east"));
  const auto echoes = frames_of<protocol::Heartbeat>(sent());
  ASSERT_EQ(echoes.size(), static_cast<std::size_t>(3 * kLiveness));
  EXPECT_EQ(echoes[0].first, "agent/east");
  EXPECT_EQ(echoes[0].second.hub_epoch, 42u);
}

TEST_F(HubActorsTest, UnansweredDispatchIsTreatedAsRejectedAndCancelled) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  for (int i = 1; i < kLiveness; ++i) {
    tick();
    from_agent("agent/east", protocol::Heartbeat{"east", 42});  // alive, but silent on the dispatch
    EXPECT_TRUE(frames_of<protocol::Cancel>(sent()).empty());
  }
  tick();
  const auto cancels = frames_of<protocol::Cancel>(sent());
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].first, "agent/east");
  EXPECT_EQ(cancels[0].second.dispatch_id, dispatch.dispatch_id);
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_TRUE(contains(job_events("train"), "rejected by east: agent did not answer"));
}

TEST_F(HubActorsTest, DispatchThatCannotBeDeliveredIsRejectedAsUnreachable) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  router->on_undeliverable(OutboundFrame{Channel::kAgents, "agent/east", "", dispatch.dispatch_id},
                           "peer is not connected");
  sched.run();
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_TRUE(contains(job_events("train"), "agent unreachable"));
}

TEST_F(HubActorsTest, RejectRequeuesTheJob) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/east",
             protocol::Reject{dispatch.dispatch_id, "train", "node east-node-0 is busy"});
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Pending");
  EXPECT_EQ(info.requeues, 1);
  EXPECT_TRUE(contains(job_events("train"), "rejected by east: node east-node-0 is busy"));
}

TEST_F(HubActorsTest, BadYamlIsRefusedNamingTheFieldAndTheHubKeepsAnswering) {
  const auto refused = submit(job_yaml("train", 1, 1) + "  maxRetry: [oops]\n");  // under spec
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("spec.maxRetry"), std::string::npos) << refused.error;

  const auto bad_replicas = submit(job_yaml("train", 0, 1));
  EXPECT_FALSE(bad_replicas.ok);
  EXPECT_NE(bad_replicas.error.find("spec.tasks[0].replicas"), std::string::npos)
      << bad_replicas.error;

  const auto bad_quantity = submit(
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: q}\nspec:\n  tasks:\n"
      "    - name: w\n      template:\n        spec:\n          containers:\n"
      "            - name: c\n              resources: {requests: {cpu: lots}}\n");
  EXPECT_FALSE(bad_quantity.ok);
  EXPECT_NE(bad_quantity.error.find("cpu"), std::string::npos) << bad_quantity.error;
  EXPECT_NE(bad_quantity.error.find("lots"), std::string::npos) << bad_quantity.error;

  const auto not_yaml = submit("{{{ not yaml");
  EXPECT_FALSE(not_yaml.ok);
  EXPECT_FALSE(not_yaml.error.empty());

  const auto accepted = submit(job_yaml("train", 1, 1));
  EXPECT_TRUE(accepted.ok) << accepted.error;
  EXPECT_EQ(accepted.job, "train");
  const auto jobs = ask<protocol::ListReply>(protocol::ListRequest{"jobs"}).jobs;
  ASSERT_EQ(jobs.size(), 1u);  // none of the refused ones reached the core
  EXPECT_EQ(jobs[0].name, "train");
}

TEST_F(HubActorsTest, JobForAnUnknownQueueIsRefused) {
  const auto reply = submit(job_yaml("train", 1, 1, "research"));
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error, "spec.queue: no such queue (got \"research\")");
}

TEST_F(HubActorsTest, DuplicateJobNameIsRefusedAndTheFirstJobKept) {
  ASSERT_TRUE(submit(job_yaml("train", 1, 1)).ok);
  const auto again = submit(job_yaml("train", 2, 1));
  EXPECT_FALSE(again.ok);
  EXPECT_NE(again.error.find("metadata.name"), std::string::npos) << again.error;
  EXPECT_EQ(job("train").replicas, 1);
}

TEST_F(HubActorsTest, CancelOfUnknownJobIsAnError) {
  const auto reply = ask<protocol::AdminResult>(protocol::CancelRequest{"job", "ghost"});
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error, "job \"ghost\" not found");
}

TEST_F(HubActorsTest, CancelOfRunningJobTellsItsAgent) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/east", protocol::Admit{dispatch.dispatch_id, "train"});

  const auto reply = ask<protocol::AdminResult>(protocol::CancelRequest{"job", "train"});
  EXPECT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(job("train").phase, "Aborted");
  const auto cancels = frames_of<protocol::Cancel>(sent());
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].first, "agent/east");
  EXPECT_EQ(cancels[0].second.dispatch_id, dispatch.dispatch_id);
}

TEST_F(HubActorsTest, QueuesAreAppliedUsedAndDeleted) {
  const std::string research =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: research}\n"
      "spec: {weight: 2, capability: {nvidia.com/gpu: 4}}\n";
  const auto created = ask<protocol::AdminResult>(protocol::ApplyRequest{research});
  EXPECT_TRUE(created.ok) << created.error;
  EXPECT_EQ(created.message, "queue/research created");
  ASSERT_TRUE(submit(job_yaml("train", 1, 1, "research")).ok);
  const auto busy = ask<protocol::AdminResult>(protocol::DeleteRequest{"queue", "research"});
  EXPECT_FALSE(busy.ok);
  EXPECT_NE(busy.error.find("still holds jobs"), std::string::npos) << busy.error;
  const auto bad = ask<protocol::AdminResult>(protocol::ApplyRequest{
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: x}\nspec: {weight: 0}\n"});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("spec.weight"), std::string::npos) << bad.error;
  ask<protocol::AdminResult>(protocol::CancelRequest{"job", "train"});
  EXPECT_TRUE(ask<protocol::AdminResult>(protocol::DeleteRequest{"queue", "research"}).ok);
}

TEST_F(HubActorsTest, ListsClustersAndTheDefaultQueue) {
  register_cluster("west", 2, 8);
  ASSERT_TRUE(submit(job_yaml("big", 4, 8)).ok);  // needs 4 nodes: stays pending
  const auto clusters = ask<protocol::ListReply>(protocol::ListRequest{"clusters"}).clusters;
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].name, "west");
  EXPECT_TRUE(clusters[0].ready);
  EXPECT_EQ(clusters[0].nodes, 2);
  EXPECT_EQ(clusters[0].capacity.at("nvidia.com/gpu"), 16'000);

  const auto queues = ask<protocol::ListReply>(protocol::ListRequest{"queues"}).queues;
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].name, "default");
  EXPECT_EQ(queues[0].pending.at("nvidia.com/gpu"), 32'000);

  const auto pending = job("big");
  EXPECT_EQ(pending.phase, "Pending");
  EXPECT_FALSE(pending.reason.empty());

  const auto unknown = ask<protocol::ListReply>(protocol::ListRequest{"pods"});
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.find("\"pods\""), std::string::npos);
}

TEST_F(HubActorsTest, FrameFromPeerWithoutHelloIsAnsweredNotRegistered) {
  from_agent("agent/stranger", protocol::Admit{7, "x"});
  const auto errors = frames_of<protocol::ErrorReply>(sent());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, "agent/stranger");
  EXPECT_EQ(errors[0].second.code, "not_registered");
}

TEST_F(HubActorsTest, HelloListingDispatchesTheHubDoesNotKnowGetsThemCancelled) {
  from_agent("agent/east", protocol::Hello{"east", {}, "test", {{17, "gone", {}}, {18, "also-gone", {}}}, {}});
  const auto cancels = frames_of<protocol::Cancel>(sent());
  ASSERT_EQ(cancels.size(), 2u);
  EXPECT_EQ(cancels[0].first, "agent/east");
  EXPECT_EQ(cancels[0].second.dispatch_id, 17u);
  EXPECT_EQ(cancels[1].second.dispatch_id, 18u);
}

TEST_F(HubActorsTest, AgentThatComesBackWithoutAJobGetsItRequeuedAndOneThatKeptItKeepsIt) {
  register_cluster("west", 2, 8);
  ASSERT_TRUE(submit(job_yaml("kept", 1, 8)).ok);
  const auto kept = only_dispatch().second;
  ASSERT_TRUE(submit(job_yaml("lost", 1, 8)).ok);
  const auto lost = only_dispatch().second;
  from_agent("agent/west", protocol::Admit{kept.dispatch_id, "kept"});
  from_agent("agent/west", protocol::Admit{lost.dispatch_id, "lost"});

  // The agent restarted (same hub): it still runs "kept" only.
  from_agent("agent/west",
             protocol::Hello{"west", {}, "test", {{kept.dispatch_id, "kept", {{"worker", "west-node-0"}}}}, {}});
  EXPECT_EQ(job("kept").phase, "Running");
  EXPECT_TRUE(contains(job_events("lost"), "requeued: the agent on west no longer runs it"));
  const auto after_hello = sent();
  EXPECT_TRUE(frames_of<protocol::Cancel>(after_hello).empty()) << "kept is not stopped";
  EXPECT_TRUE(frames_of<protocol::Dispatch>(after_hello).empty()) << "not before the agent's next report";
  from_agent("agent/west", usage_report("west", 2, 8));
  const auto again = only_dispatch().second;
  EXPECT_EQ(again.job.name, "lost");
  EXPECT_NE(again.dispatch_id, lost.dispatch_id);
}

TEST_F(HubActorsTest, AcceptedJobsThatHadNotEndedComeBackAfterARestart) {
  register_cluster("west", 1, 8);
  ASSERT_TRUE(submit(job_yaml("done", 1, 8)).ok);
  const auto dispatch = only_dispatch().second;
  from_agent("agent/west", protocol::Admit{dispatch.dispatch_id, "done"});
  from_agent("agent/west",
             protocol::StatusUpdate{dispatch.dispatch_id, "done", "Completed", {}, ""});
  ASSERT_TRUE(submit(job_yaml("waiting", 2, 8)).ok);  // 2 nodes: cannot fit
  ASSERT_TRUE(submit(job_yaml("cancelled", 2, 8)).ok);
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::CancelRequest{"job", "cancelled"}).ok);

  stop();  // the hub goes away; a new one opens the same state directory
  start();

  const auto jobs = ask<protocol::ListReply>(protocol::ListRequest{"jobs"}).jobs;
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].name, "waiting");
  EXPECT_EQ(jobs[0].phase, "Pending");
  EXPECT_TRUE(contains(job_events("waiting"), "queued again after a hub restart"));
}

// ---- a restarted hub and the runs its clusters kept

class HubRestartTest : public HubActorsTest {
 protected:
  // "long" (one 8-GPU replica) runs on west when the hub goes away and a new
  // one opens the same state directory.
  protocol::Dispatch run_long_then_restart() {
    register_cluster("west", 1, 8);
    EXPECT_TRUE(submit(job_yaml("long", 1, 8)).ok);
    const protocol::Dispatch dispatch = only_dispatch().second;
    from_agent("agent/west", protocol::Admit{dispatch.dispatch_id, "long"});
    stop();
    start();
    sent();
    return dispatch;
  }
  // West's agent comes back, still running `dispatch` on its only node.
  void west_returns_running(const protocol::Dispatch& dispatch) {
    from_agent("agent/west",
               protocol::Hello{"west", {}, "test", {{dispatch.dispatch_id, "long", {{"worker", "west-node-0"}}}}, {}});
    protocol::UsageReport report = usage_report("west", 1, 8);
    report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
    report.accounted_dispatches = {dispatch.dispatch_id};
    from_agent("agent/west", report);
  }
  // Like run_long_then_restart(), but the agent's Hello (made from the id
  // "long" ran under) reaches the scheduler before "long" is back from the store.
  template <class MakeHello>
  protocol::Dispatch restart_with_hello_first(MakeHello make_hello) {
    register_cluster("west", 1, 8);
    EXPECT_TRUE(submit(job_yaml("long", 1, 8)).ok);
    const protocol::Dispatch dispatch = only_dispatch().second;
    from_agent("agent/west", protocol::Admit{dispatch.dispatch_id, "long"});
    stop();
    start(false);
    router->on_message(InboundMessage{Channel::kAgents, "agent/west", 1, make_hello(dispatch.dispatch_id)});
    EXPECT_TRUE(sched.prioritize(actors.registry));
    sched.run_once();
    EXPECT_TRUE(sched.prioritize(actors.scheduler));
    while (sched.prioritize(actors.scheduler)) sched.run_once();
    sched.run();  // now the queue actor re-queues "long"
    sent();
    return dispatch;
  }

  // The grace period for agents to come back passes; west keeps beating.
  void grace_passes() {
    for (int i = 0; i < kLiveness; ++i) {
      tick();
      from_agent("agent/west", protocol::Heartbeat{"west", 42});
    }
  }
};

TEST_F(HubRestartTest, JobStillRunningOnItsClusterIsTakenBackNotStartedAgain) {
  const protocol::Dispatch dispatch = run_long_then_restart();
  west_returns_running(dispatch);
  grace_passes();

  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty()) << "no second run";
  EXPECT_EQ(job("long").phase, "Running");
  EXPECT_EQ(job("long").clusters, std::vector<std::string>{"west"});
  EXPECT_TRUE(contains(job_events("long"), "still running on west from before the hub restarted"));
  // Its end, under the earlier hub's dispatch id, ends the job.
  from_agent("agent/west", protocol::StatusUpdate{dispatch.dispatch_id, "long", "Completed", {}, ""});
  EXPECT_EQ(job("long").phase, "Completed");
  EXPECT_TRUE(frames_of<protocol::Cancel>(sent()).empty());
}

TEST_F(HubRestartTest, JobThatEndedWhileTheHubWasAwayIsNotRunAgain) {
  const protocol::Dispatch dispatch = run_long_then_restart();
  from_agent("agent/west", protocol::Hello{"west", {}, "test", {}, {}});
  from_agent("agent/west", usage_report("west", 1, 8));
  from_agent("agent/west", protocol::StatusUpdate{dispatch.dispatch_id, "long", "Failed", {}, "exit 3"});
  grace_passes();

  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Failed");
  EXPECT_TRUE(contains(job_events("long"), "Failed on west while the hub was away"));
  stop();  // and it stays ended across the next restart
  start();
  EXPECT_TRUE(ask<protocol::ListReply>(protocol::ListRequest{"jobs"}).jobs.empty());
}

TEST_F(HubRestartTest, EndTheHubMissedIsTakenFromTheAgentsHello) {
  const protocol::Dispatch dispatch = run_long_then_restart();
  // The Completed the agent sent as the hub went away never arrived; its
  // Hello repeats it.
  from_agent("agent/west",
             protocol::Hello{"west", {}, "test", {},
                             {protocol::StatusUpdate{dispatch.dispatch_id, "long", "Completed", {}, ""}}});
  from_agent("agent/west", usage_report("west", 1, 8));
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Completed");
}

TEST_F(HubRestartTest, EndReportedBeforeItsJobIsRestoredStillEndsIt) {
  restart_with_hello_first([](hub::DispatchId id) {
    return protocol::Hello{"west", {}, "test", {}, {protocol::StatusUpdate{id, "long", "Completed", {}, ""}}};
  });
  from_agent("agent/west", usage_report("west", 1, 8));
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Completed");
}

TEST_F(HubRestartTest, RunReportedBeforeItsJobIsRestoredIsStillTakenBack) {
  const protocol::Dispatch dispatch = restart_with_hello_first([](hub::DispatchId id) {
    return protocol::Hello{"west", {}, "test", {{id, "long", {{"worker", "west-node-0"}}}}, {}};
  });
  protocol::UsageReport report = usage_report("west", 1, 8);
  report.nodes[0].allocated = {{"nvidia.com/gpu", 8000}};
  report.accounted_dispatches = {dispatch.dispatch_id};
  from_agent("agent/west", report);
  grace_passes();
  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty());
  EXPECT_EQ(job("long").phase, "Running");
}

TEST_F(HubRestartTest, RestoredJobNobodyRunsIsPlacedAgainAfterTheGracePeriodWithANewId) {
  const protocol::Dispatch old = run_long_then_restart();
  from_agent("agent/west", protocol::Hello{"west", {}, "test", {}, {}});  // the agent lost it
  from_agent("agent/west", usage_report("west", 1, 8));
  EXPECT_TRUE(frames_of<protocol::Dispatch>(sent()).empty()) << "not during the grace period";

  grace_passes();
  const protocol::Dispatch again = only_dispatch().second;
  EXPECT_EQ(again.job.name, "long");
  EXPECT_GT(again.dispatch_id, old.dispatch_id) << "ids of a later hub are above an earlier hub's";
}

TEST_F(HubRestartTest, RunOfAJobCancelledMeanwhileIsStopped) {
  const protocol::Dispatch dispatch = run_long_then_restart();
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::CancelRequest{"job", "long"}).ok);
  west_returns_running(dispatch);
  grace_passes();
  const auto cancels = frames_of<protocol::Cancel>(sent());
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].second.dispatch_id, dispatch.dispatch_id);
}

}  // namespace
}  // namespace gantry::actors
