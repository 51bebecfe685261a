// The hub's actors end to end without sockets: sessions, two-phase dispatch
// (Prepare -> Admit | Reject -> Commit | Abort), resends and answer timeouts,
// submissions and the admin requests.
#include "actors/actor_messages.hpp"
#include "hub_actors_fixture.hpp"
#include "protocol/lease_timing.hpp"

namespace gantry::actors {
namespace {

TEST_F(HubActorsTest, HelloIsWelcomedWithTheHubsHeartbeatSettings) {
  from_agent("agent/east", protocol::Hello{"east", {}, "test", {}, {}});
  const auto welcomes = frames_of<protocol::Welcome>(sent());
  ASSERT_EQ(welcomes.size(), 1u);
  EXPECT_EQ(welcomes[0].first, "agent/east");
  EXPECT_EQ(welcomes[0].second.hub_epoch, 42u);
  EXPECT_EQ(welcomes[0].second.heartbeat_interval_ms, 1000);
  // The agents' fence timeout in heartbeats (protocol/lease_timing.hpp).
  EXPECT_EQ(welcomes[0].second.heartbeat_liveness,
            protocol::fence_in_heartbeats(kHeartbeat * kLostTicks, kHeartbeat));
}

// ---- two-phase dispatch

TEST_F(HubActorsTest, FittingJobIsPreparedOnceOnTheRightAgentWithItsNodes) {
  register_cluster("east", 2, 0);  // no GPUs
  register_cluster("west", 2, 8);
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 2, 4)).ok);

  const auto [peer, prepare] = only_prepare();
  EXPECT_EQ(peer, "agent/west");
  EXPECT_NE(prepare.dispatch_id, 0u);
  EXPECT_EQ(prepare.part, 0);
  EXPECT_EQ(prepare.parts, 1);
  EXPECT_EQ(prepare.epoch, 1u);
  EXPECT_EQ(prepare.job.name, "train");
  ASSERT_EQ(prepare.job.tasks.size(), 1u);
  EXPECT_EQ(prepare.job.tasks[0].containers[0].image, "busybox");
  EXPECT_EQ(prepare.task_replicas, (std::map<std::string, std::int32_t>{{"worker", 2}}));
  ASSERT_EQ(prepare.nodes.size(), 2u);
  for (const protocol::PlacedReplica& replica : prepare.nodes) {
    EXPECT_EQ(replica.task, "worker");
    EXPECT_EQ(replica.node.rfind("west-node-", 0), 0u) << replica.node;
  }
  EXPECT_EQ(prepare.rank_offset, 0);
  EXPECT_EQ(prepare.world_size, 2);
  EXPECT_EQ(prepare.task_index_offsets, (std::map<std::string, std::int32_t>{{"worker", 0}}));
  EXPECT_TRUE(frames_of<protocol::Commit>(sent()).empty());
  EXPECT_EQ(job("train").phase, "Pending");  // prepared, not yet admitted
}

TEST_F(HubActorsTest, AdmitIsCommittedAtTheRendezvousAndCompletedEndsTheJob) {
  register_cluster("west", 2, 8);
  ASSERT_TRUE(submit(job_yaml("train", 2, 4)).ok);
  const auto [peer, prepare] = only_prepare();

  admit(peer, prepare);
  const auto [commit_peer, commit] = only<protocol::Commit>();
  EXPECT_EQ(commit_peer, "agent/west");
  EXPECT_EQ(commit.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(commit.job, "train");
  EXPECT_EQ(commit.part, 0);
  EXPECT_EQ(commit.master_addr, "10.0.0.7");
  EXPECT_EQ(commit.master_port, 29500);
  EXPECT_EQ(job("train").phase, "Running");
  EXPECT_EQ(job("train").clusters, std::vector<std::string>{"west"});

  from_agent(peer, protocol::StatusUpdate{
                       prepare.dispatch_id, "train", "Completed", {{"worker", 0, 0, 2, 0}}, ""});
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

// The Prepare does not wait for its record (a prepared part a restarted hub
// has no record of is aborted); the Commit does.
TEST_F(HubActorsTest, TheCommitIsRecordedBeforeAnyCommitLeaves) {
  register_cluster("west", 1, 8);
  // What a hub restarting at the moment a Commit leaves would read.
  std::vector<StoredDispatch> seen;
  sink.watch = [&](const OutboundFrame& frame) {
    if (testing::type_of(frame.frame) != protocol::MessageType::kCommit) return;
    const std::vector<StoredJob> stored = SqliteJobStore(dir.path()).unfinished();
    seen.push_back(stored.empty() ? StoredDispatch{} : stored.front().dispatch);
  };
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  admit(peer, prepare);
  sink.watch = nullptr;

  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].id, prepare.dispatch_id);
  EXPECT_TRUE(seen[0].committed);
  EXPECT_EQ(seen[0].clusters, std::vector<std::string>{"west"});
  EXPECT_EQ(seen[0].rendezvous_host, "10.0.0.7");
  EXPECT_EQ(seen[0].rendezvous_port, 29500);
}

TEST_F(HubActorsTest, SplitJobIsPreparedOnTwoClustersAndARejectAbortsTheAdmittedPart) {
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 8);
  register_cluster("north", 1, 8);
  sent();
  ASSERT_TRUE(submit(split_job_yaml("wide", 2, 8)).ok);  // no single cluster holds it

  auto prepares = frames_of<protocol::Prepare>(sent());
  ASSERT_EQ(prepares.size(), 2u);
  std::sort(prepares.begin(), prepares.end(),
            [](const auto& a, const auto& b) { return a.second.part < b.second.part; });
  const auto [first_peer, first] = prepares[0];
  const auto [second_peer, second] = prepares[1];
  EXPECT_NE(first_peer, second_peer);
  EXPECT_EQ(first.dispatch_id, second.dispatch_id);
  EXPECT_EQ(second.part, 1);
  EXPECT_EQ(first.parts, 2);
  EXPECT_EQ(second.parts, 2);
  EXPECT_EQ(first.world_size, 2);
  EXPECT_EQ(first.rank_offset, 0);
  EXPECT_EQ(second.rank_offset, 1);
  EXPECT_EQ(second.task_index_offsets, (std::map<std::string, std::int32_t>{{"worker", 1}}));
  EXPECT_EQ(second.task_replicas, (std::map<std::string, std::int32_t>{{"worker", 1}}));
  ASSERT_EQ(second.nodes.size(), 1u);
  EXPECT_EQ(second.nodes[0].node, cluster_of(second_peer) + "-node-0");

  admit(first_peer, first);
  EXPECT_TRUE(frames_of<protocol::Commit>(sent()).empty()) << "not before every part admitted";
  EXPECT_TRUE(contains(job_events("wide"), "admitted; waiting for the other parts"));
  from_agent(second_peer, protocol::Reject{second.dispatch_id, "wide", "GPU 3 is broken", 1});

  const std::vector<OutboundFrame> after_reject = sent();
  const auto aborts = frames_of<protocol::Abort>(after_reject);
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].first, first_peer);
  EXPECT_EQ(aborts[0].second.dispatch_id, first.dispatch_id);
  EXPECT_EQ(aborts[0].second.part, 0);
  EXPECT_TRUE(frames_of<protocol::Commit>(after_reject).empty());
  EXPECT_TRUE(
      contains(job_events("wide"), "rejected by " + cluster_of(second_peer) + ": GPU 3 is broken"));

  // Placed again at once, without the cluster that refused it.
  auto again = frames_of<protocol::Prepare>(after_reject);
  ASSERT_EQ(again.size(), 2u);
  for (const auto& [peer, prepare] : again) {
    EXPECT_NE(peer, second_peer);
    EXPECT_NE(prepare.dispatch_id, first.dispatch_id);
    EXPECT_EQ(prepare.epoch, 2u);
  }
  std::sort(again.begin(), again.end(),
            [](const auto& a, const auto& b) { return a.second.part < b.second.part; });
  admit(again[1].first, again[1].second);
  admit(again[0].first, again[0].second);
  const auto commits = frames_of<protocol::Commit>(sent());
  ASSERT_EQ(commits.size(), 2u);
  for (const auto& [peer, commit] : commits) {
    EXPECT_EQ(commit.master_addr, "10.0.0.7") << "part 0's rendezvous, for every part";
    EXPECT_EQ(commit.master_port, 29500);
  }
  const protocol::JobInfo info = job("wide");
  EXPECT_EQ(info.phase, "Running");
  EXPECT_EQ(info.requeues, 1);
  ASSERT_EQ(info.parts.size(), 2u);
  EXPECT_EQ(info.parts[0].cluster, cluster_of(again[0].first));
  EXPECT_EQ(info.parts[1].task_replicas, (std::map<std::string, std::int32_t>{{"worker", 1}}));
  EXPECT_EQ(info.clusters,
            (std::vector<std::string>{cluster_of(again[0].first), cluster_of(again[1].first)}));
}

TEST_F(HubActorsTest, DuplicateAndLateAnswersChangeNothing) {
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 8);
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [first_peer, first] = only_prepare();
  from_agent(first_peer, protocol::Reject{first.dispatch_id, "train", "busy", 0});
  const auto [second_peer, second] = only_prepare();
  ASSERT_NE(second_peer, first_peer);

  from_agent(first_peer, protocol::Reject{first.dispatch_id, "train", "busy", 0});  // again
  EXPECT_EQ(job("train").requeues, 1);
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  // An Admit of the refused dispatch that crossed the Reject: released.
  from_agent(first_peer, protocol::Admit{first.dispatch_id, "train", 0, "10.0.0.1", 1234});
  const auto late = sent();
  EXPECT_TRUE(frames_of<protocol::Commit>(late).empty());
  const auto aborts = frames_of<protocol::Abort>(late);
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].first, first_peer);
  EXPECT_EQ(aborts[0].second.dispatch_id, first.dispatch_id);

  admit(second_peer, second);
  ASSERT_EQ(frames_of<protocol::Commit>(sent()).size(), 1u);
  admit(second_peer, second);  // a duplicate
  const auto duplicate = sent();
  EXPECT_TRUE(frames_of<protocol::Commit>(duplicate).empty());
  EXPECT_TRUE(frames_of<protocol::Abort>(duplicate).empty());
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Running");
  EXPECT_EQ(info.clusters, std::vector<std::string>{cluster_of(second_peer)});
  EXPECT_EQ(info.requeues, 1);
}

TEST_F(HubActorsTest, UnansweredPrepareIsSentAgainEachTickThenCountsAsARejectAndIsAborted) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  for (int i = 1; i < kAnswerTicks; ++i) {
    tick_beating({"east"});  // alive, but silent on the prepare (or the prepare was lost)
    const auto again = only_prepare();
    EXPECT_EQ(again.first, peer);
    EXPECT_EQ(again.second.dispatch_id, prepare.dispatch_id) << "the same frame";
  }
  tick_beating({"east"});
  const auto [abort_peer, abort] = only<protocol::Abort>();
  EXPECT_EQ(abort_peer, "agent/east");
  EXPECT_EQ(abort.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(abort.reason, "agent did not answer the prepare within 3s");
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_TRUE(contains(job_events("train"),
                       "rejected by east: agent did not answer the prepare within 3s"));
  tick_beating({"east"});
  EXPECT_EQ(frames_of<protocol::Prepare>(sent()).size(), 1u)
      << "a new dispatch once east's backoff ran out";
}

TEST_F(HubActorsTest, LostAdmitIsAnsweredToTheResentPrepare) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();  // its Admit never arrives
  tick_beating({"east"});
  const auto [again_peer, again] = only_prepare();
  admit(again_peer, again);  // the agent answers the duplicate with its Admit again
  EXPECT_EQ(only<protocol::Commit>().second.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, CommitIsSentUntilAStatusConfirmsIt) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  admit(peer, prepare);
  only<protocol::Commit>();
  tick_beating({"east"});
  EXPECT_EQ(only<protocol::Commit>().second.dispatch_id, prepare.dispatch_id) << "sent again";
  report(peer, prepare, "Running");
  for (int i = 0; i < kAnswerTicks; ++i) tick_beating({"east"});
  const auto quiet = sent();
  EXPECT_TRUE(frames_of<protocol::Commit>(quiet).empty());
  EXPECT_TRUE(frames_of<protocol::Abort>(quiet).empty());
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, UnconfirmedCommitRequeuesTheJobAndAbortsThePart) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  admit(peer, prepare);
  ASSERT_EQ(job("train").phase, "Running");
  for (int i = 0; i < kAnswerTicks; ++i) tick_beating({"east"});
  const auto [abort_peer, abort] = only<protocol::Abort>();
  EXPECT_EQ(abort_peer, "agent/east");
  EXPECT_EQ(abort.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(abort.reason, "agent did not confirm the commit within 3s");
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Pending");
  EXPECT_EQ(info.requeues, 1);
  EXPECT_TRUE(contains(job_events("train"), "agent did not confirm the commit within 3s"));
}

TEST_F(HubActorsTest, PrepareThatCouldNotBeDeliveredIsSentAgainUntilItsDeadline) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  router->on_undeliverable(OutboundFrame{Channel::kAgents, peer, "", prepare.dispatch_id},
                           "peer is not connected");
  sched.run();
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_TRUE(frames_of<protocol::Abort>(sent()).empty()) << "not given up on yet";
  tick_beating({"east"});
  const auto [again_peer, again] = only_prepare();
  admit(again_peer, again);
  EXPECT_EQ(job("train").phase, "Running");
}

TEST_F(HubActorsTest, PrepareForAClusterWithoutAnAgentSessionIsRejectedAsUnreachable) {
  register_cluster("east", 1, 8);
  // The session is gone before the dispatcher sends (the registry forgot the
  // peer while the scheduler still counted the cluster ready).
  caf::anon_send(actors.dispatcher, peer_atom_v, std::string("east"), std::string());
  sched.run();
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty());
  EXPECT_EQ(job("train").phase, "Pending");
  EXPECT_TRUE(contains(job_events("train"), "rejected by east: agent unreachable"));
}

TEST_F(HubActorsTest, RejectRequeuesTheJobAndBacksTheClusterOff) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  from_agent(peer, protocol::Reject{prepare.dispatch_id, "train", "node east-node-0 is busy", 0});
  const protocol::JobInfo info = job("train");
  EXPECT_EQ(info.phase, "Pending");
  EXPECT_EQ(info.requeues, 1);
  EXPECT_TRUE(contains(
      job_events("train"),
      "rejected by east: node east-node-0 is busy; east is not tried again for it for 1 s"));
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty()) << "backed off";
  tick_beating({"east"});
  EXPECT_EQ(only_prepare().second.epoch, 2u) << "tried again once the backoff ran out";
}

TEST_F(HubActorsTest, FailedStatusMakesTheJobFailedWithTheAgentsMessage) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(job_yaml("train", 1, 1));
  from_agent(
      peer,
      protocol::StatusUpdate{
          prepare.dispatch_id, "train", "Failed", {{"worker", 0, 0, 0, 1}}, "worker-0 exited 3"});
  EXPECT_EQ(job("train").phase, "Failed");
  EXPECT_TRUE(contains(job_events("train"), "worker-0 exited 3"));
}

TEST_F(HubActorsTest, HeartbeatsKeepAClusterReadyAndAreEchoed) {
  register_cluster("east", 1, 8);
  sent();
  for (int i = 0; i < 3 * kLostTicks; ++i) tick_beating({"east"});
  EXPECT_TRUE(cluster_ready("east"));
  const auto echoes = frames_of<protocol::Heartbeat>(sent());
  ASSERT_EQ(echoes.size(), static_cast<std::size_t>(3 * kLostTicks));
  EXPECT_EQ(echoes[0].first, "agent/east");
  EXPECT_EQ(echoes[0].second.hub_epoch, 42u);
}

// ---- views

TEST_F(HubActorsTest, DescribeShowsPartsPlacementScoresAndEpoch) {
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 4);
  ASSERT_TRUE(
      ask<protocol::AdminResult>(
          protocol::ApplyRequest{
              "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: capped}\n"
              "spec: {capability: {nvidia.com/gpu: 1}}\n"})
          .ok);
  ASSERT_TRUE(
      submit(job_yaml("waiting", 1, 2, "capped")).ok);  // over its queue's cap: stays pending
  const protocol::JobInfo waiting = job("waiting");
  EXPECT_EQ(waiting.phase, "Pending");
  EXPECT_EQ(waiting.placement, "binpack");
  EXPECT_EQ(waiting.epoch, 0u);
  EXPECT_TRUE(waiting.parts.empty());
  ASSERT_EQ(waiting.scores.size(), 2u) << "scored now, as it would be placed";
  EXPECT_EQ(waiting.scores[0].cluster, "west") << "binpack: the fewest GPUs left";

  const auto [peer, prepare] = run(job_yaml("train", 1, 4));
  const protocol::JobInfo running = job("train");
  EXPECT_EQ(peer, "agent/west");
  EXPECT_EQ(running.epoch, 1u);
  ASSERT_EQ(running.parts.size(), 1u);
  EXPECT_EQ(running.parts[0].cluster, "west");
  EXPECT_EQ(running.parts[0].task_replicas, (std::map<std::string, std::int32_t>{{"worker", 1}}));
  EXPECT_EQ(running.clusters, std::vector<std::string>{"west"});
  ASSERT_EQ(running.scores.size(), 2u) << "the scores of the decision that placed it";
  EXPECT_EQ(running.scores[0].cluster, "west");
  EXPECT_GT(running.scores[0].score, running.scores[1].score);
}

TEST_F(HubActorsTest, PlacementFlagChoosesTheHubsDefaultPolicy) {
  stop();
  placement = "spread";
  start();
  register_cluster("east", 1, 8);
  register_cluster("west", 1, 4);
  sent();
  ASSERT_TRUE(submit(job_yaml("train", 1, 4)).ok);
  EXPECT_EQ(only_prepare().first, "agent/east") << "spread: the most free GPUs";
  EXPECT_EQ(job("train").placement, "spread");
}

// ---- submissions and admin requests

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

TEST_F(HubActorsTest, CancelOfRunningJobTellsItsAgentToStop) {
  register_cluster("east", 1, 8);
  const auto [peer, prepare] = run(job_yaml("train", 1, 8));

  const auto reply = ask<protocol::AdminResult>(protocol::CancelRequest{"job", "train"});
  EXPECT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(job("train").phase, "Aborted");
  const auto [cancel_peer, cancel] = only<protocol::Cancel>();
  EXPECT_EQ(cancel_peer, "agent/east");
  EXPECT_EQ(cancel.dispatch_id, prepare.dispatch_id);
}

TEST_F(HubActorsTest, CancelOfAPreparedJobAbortsItsPartAndTheLateAdmitIsNotCommitted) {
  register_cluster("east", 1, 8);
  ASSERT_TRUE(submit(job_yaml("train", 1, 8)).ok);
  const auto [peer, prepare] = only_prepare();
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::CancelRequest{"job", "train"}).ok);
  const auto [abort_peer, abort] = only<protocol::Abort>();
  EXPECT_EQ(abort_peer, "agent/east");
  EXPECT_EQ(abort.dispatch_id, prepare.dispatch_id);
  EXPECT_EQ(abort.reason, "cancelled");
  admit(peer, prepare);
  EXPECT_TRUE(frames_of<protocol::Commit>(sent()).empty());
  EXPECT_EQ(job("train").phase, "Aborted");
  tick_beating({"east"});
  EXPECT_TRUE(frames_of<protocol::Prepare>(sent()).empty())
      << "an aborted prepare is not sent again";
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
  const auto bad = ask<protocol::AdminResult>(
      protocol::ApplyRequest{"apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: "
                             "{name: x}\nspec: {weight: 0}\n"});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("spec.weight"), std::string::npos) << bad.error;
  const auto job = ask<protocol::AdminResult>(protocol::ApplyRequest{job_yaml("applied", 1, 1)});
  EXPECT_FALSE(job.ok);
  EXPECT_EQ(job.error,
            "kind: apply takes a Queue or a PriorityClass; a Job is submitted (gantryctl submit -f "
            "FILE) (got \"Job\")");
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
  EXPECT_FALSE(clusters[0].cordoned);
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
  from_agent("agent/stranger", protocol::Admit{7, "x", 0, "", 0});
  const auto [peer, error] = only<protocol::ErrorReply>();
  EXPECT_EQ(peer, "agent/stranger");
  EXPECT_EQ(error.code, "not_registered");
}

// Runs of this state's earlier hub that no job of the store claims were
// stopped by it or belong to jobs deleted since: they must not run on.
TEST_F(HubActorsTest, HelloListingDispatchesOfAnEarlierHubTheStateDoesNotKnowGetsThemStopped) {
  stop();  // a later hub on the same state
  start();
  const std::uint64_t earlier = SqliteJobStore(dir.path()).first_generation() << 40;
  from_agent("agent/east", protocol::Hello{"east",
                                           {},
                                           "test",
                                           {{earlier + 17, "gone", {}, 0, 1, true},
                                            {earlier + 18, "also-gone", {}, 0, 1, true},
                                            {earlier + 19, "only-prepared", {}, 1, 2, false}},
                                           {}});
  const auto frames = sent();
  const auto cancels = frames_of<protocol::Cancel>(frames);
  ASSERT_EQ(cancels.size(), 2u);
  EXPECT_EQ(cancels[0].first, "agent/east");
  EXPECT_EQ(cancels[0].second.dispatch_id, earlier + 17);
  EXPECT_EQ(cancels[1].second.dispatch_id, earlier + 18);
  const auto aborts = frames_of<protocol::Abort>(frames);
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].second.dispatch_id, earlier + 19);
}

// A new state knows nothing of what agents ran before it was made: it holds
// those runs instead of stopping them (the hub's state was lost, not its jobs).
TEST_F(HubActorsTest, HelloListingDispatchesFromBeforeANewStateHoldsThem) {
  from_agent("agent/east",
             protocol::Hello{"east",
                             {},
                             "test",
                             {{17, "gone", {}, 0, 1, true}, {19, "only-prepared", {}, 1, 2, false}},
                             {}});
  const auto frames = sent();
  EXPECT_TRUE(frames_of<protocol::Cancel>(frames).empty());
  EXPECT_TRUE(frames_of<protocol::Abort>(frames).empty());
}

TEST_F(HubActorsTest, AgentThatComesBackWithoutAJobGetsItRequeuedAndOneThatKeptItKeepsIt) {
  register_cluster("west", 2, 8);
  const auto [peer, kept] = run(job_yaml("kept", 1, 8));
  const auto lost = run(job_yaml("lost", 1, 8)).second;

  // The agent restarted (same hub): it still runs "kept" only.
  from_agent(peer,
             protocol::Hello{"west",
                             {},
                             "test",
                             {{kept.dispatch_id, "kept", {{"worker", "west-node-0"}}, 0, 1, true}},
                             {}});
  EXPECT_EQ(job("kept").phase, "Running");
  EXPECT_TRUE(contains(job_events("lost"), "requeued: the agent on west no longer runs it"));
  const auto after_hello = sent();
  EXPECT_TRUE(frames_of<protocol::Cancel>(after_hello).empty()) << "kept is not stopped";
  EXPECT_TRUE(frames_of<protocol::Prepare>(after_hello).empty()) << "west is backed off for it";
  from_agent(peer, usage_report("west", 2, 8));
  tick_beating({"west"});
  const auto again = only_prepare().second;
  EXPECT_EQ(again.job.name, "lost");
  EXPECT_NE(again.dispatch_id, lost.dispatch_id);
}

TEST_F(HubActorsTest, AcceptedJobsThatHadNotEndedComeBackAfterARestart) {
  register_cluster("west", 1, 8);
  const auto [peer, done] = run(job_yaml("done", 1, 8));
  report(peer, done, "Completed");
  ASSERT_TRUE(submit(job_yaml("waiting", 2, 8)).ok);  // 2 nodes: cannot fit
  ASSERT_TRUE(submit(job_yaml("cancelled", 2, 8)).ok);
  const auto cancelled = ask<protocol::AdminResult>(protocol::CancelRequest{"job", "cancelled"});
  ASSERT_TRUE(cancelled.ok) << cancelled.error;
  EXPECT_EQ(cancelled.message, "job/cancelled cancelled");  // kubectl's KIND/NAME style

  stop();  // the hub goes away; a new one opens the same state directory
  start();

  // The ended ones stay listed as they ended; only "waiting" is queued again.
  const auto jobs = ask<protocol::ListReply>(protocol::ListRequest{"jobs"}).jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(job("done").phase, "Completed");
  EXPECT_EQ(job("cancelled").phase, "Aborted");
  EXPECT_EQ(job("waiting").phase, "Pending");
  EXPECT_TRUE(contains(job_events("waiting"), "queued again after a hub restart"));
  EXPECT_TRUE(contains(job_events("done"), "submitted")) << "its history came back with it";
}

}  // namespace
}  // namespace gantry::actors
