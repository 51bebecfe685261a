// The fixture of the deterministic hub actor tests: the hub's actors under
// CAF's test coordinator (time moves only when a test advances it, so leases,
// resends and answer timeouts are checked tick by tick), a real SQLite store
// in a temporary directory, and a recording sink instead of sockets. Fake
// agents speak through the same InboundRouter the I/O bridge uses.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <caf/all.hpp>
#include <chrono>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "actors/hub_actors.hpp"
#include "actors/sqlite_job_store.hpp"
#include "test_support.hpp"

namespace gantry::actors {

using namespace std::chrono_literals;
using testing::decode_as;
using testing::frames_of;
using testing::job_yaml;
using testing::split_job_yaml;
using testing::usage_report;

constexpr hub::TimeMs kStartMs = 1'700'000'000'000;
constexpr auto kHeartbeat = 1000ms;
constexpr std::int32_t kLiveness = 3;
// Ticks (heartbeat intervals) until an agent's lease, its lost grace and an
// answer's deadline run out.
constexpr int kLeaseTicks = 3;
constexpr int kLostTicks = 5;
constexpr int kAnswerTicks = 3;

// What the bridge says of every frame these tests hand the router: an admin key.
inline const Sender kTester{"tester", Role::kAdmin, {}};

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
    config.hub_epoch = 42;
    AgentSessionSettings& agents = config.settings.agents;
    agents.heartbeat_interval = kHeartbeat;
    agents.liveness = kLiveness;
    agents.agent_lease = kHeartbeat * kLeaseTicks;
    agents.lost_grace = kHeartbeat * kLostTicks;
    config.settings.prepare_timeout = kHeartbeat * kAnswerTicks;
    config.settings.scheduling.placement = *hub::find_placement_policy(placement);
    config.store = std::make_shared<SqliteJobStore>(dir.path());
    config.io_metrics = io_metrics;
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

  // One interval passes and the agents of `clusters` beat (they stay live).
  void tick_beating(std::initializer_list<const char*> clusters) {
    tick();
    for (const char* cluster : clusters)
      from_agent(peer_of(cluster), protocol::Heartbeat{cluster, 42});
  }

  void from_agent(const std::string& peer, InboundBody body) {
    to_router(peer, std::move(body));
    sched.run();
  }

  // The frame is in, and no actor has run yet: frames sent one after another
  // this way are all in the session actor's mailbox when it runs.
  void to_router(const std::string& peer, InboundBody body) {
    router->on_message(InboundMessage{Channel::kAgents, peer, ++seq_, std::move(body), kTester});
  }

  // A cluster agent says Hello and reports its nodes.
  void register_cluster(const std::string& cluster, int nodes, int gpus_per_node) {
    from_agent(peer_of(cluster), protocol::Hello{cluster, {}, "test", {}, {}});
    from_agent(peer_of(cluster), usage_report(cluster, nodes, gpus_per_node));
  }

  static std::string peer_of(const std::string& cluster) { return "agent/" + cluster; }
  static std::string cluster_of(const std::string& peer) { return peer.substr(peer.find('/') + 1); }

  // Sends an admin request and returns the reply addressed to it.
  template <class Reply, class Request>
  Reply ask(Request request) {
    const std::string peer = "console-" + std::to_string(++seq_);
    const std::uint64_t seq = seq_;
    router->on_message(InboundMessage{Channel::kAdmin, peer, seq, std::move(request), kTester});
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

  protocol::AdminResult cluster_action(const std::string& action, const std::string& cluster) {
    return ask<protocol::AdminResult>(protocol::ClusterActionRequest{action, cluster});
  }

  protocol::JobInfo job(const std::string& name) {
    const auto reply = ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name});
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.job;
  }

  std::vector<std::string> job_events(const std::string& name) {
    return ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name}).events;
  }

  protocol::ClusterInfo cluster(const std::string& name) {
    const auto reply = ask<protocol::DescribeReply>(protocol::DescribeRequest{"cluster", name});
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.cluster;
  }

  bool cluster_ready(const std::string& name) { return cluster(name).ready; }

  // Frames not yet looked at, including those set aside by ask().
  std::vector<OutboundFrame> sent() {
    std::vector<OutboundFrame> frames = std::exchange(unclaimed_, {});
    for (OutboundFrame& frame : sink.take()) frames.push_back(std::move(frame));
    return frames;
  }

  // The one frame of type T sent since the last look, with its peer; throws otherwise.
  template <class T>
  std::pair<std::string, T> only() {
    const auto frames = frames_of<T>(sent());
    if (frames.size() != 1)
      throw std::runtime_error(std::to_string(frames.size()) + " frames of type " +
                               std::string(T::kWireName) + " sent");
    return frames[0];
  }

  std::pair<std::string, protocol::Prepare> only_prepare() { return only<protocol::Prepare>(); }

  // The agent holding `prepare` admits it (part 0 names the rendezvous).
  void admit(const std::string& peer, const protocol::Prepare& prepare) {
    from_agent(peer,
               protocol::Admit{prepare.dispatch_id, prepare.job.name, prepare.part,
                               prepare.part == 0 ? "10.0.0.7" : "", prepare.part == 0 ? 29500 : 0});
  }

  void report(const std::string& peer, const protocol::Prepare& prepare, const std::string& phase,
              const std::string& message = "") {
    from_agent(peer,
               protocol::StatusUpdate{prepare.dispatch_id, prepare.job.name, phase, {}, message});
  }

  // A one-part job runs: its Prepare is admitted, the Commit that follows is
  // confirmed by a Running status. Returns the Prepare, with its agent's peer.
  std::pair<std::string, protocol::Prepare> run(const std::string& yaml) {
    EXPECT_TRUE(submit(yaml).ok);
    const auto [peer, prepare] = only_prepare();
    admit(peer, prepare);
    const auto [commit_peer, commit] = only<protocol::Commit>();
    EXPECT_EQ(commit_peer, peer);
    EXPECT_EQ(commit.dispatch_id, prepare.dispatch_id);
    report(peer, prepare, "Running");
    return {peer, prepare};
  }

  static bool contains(const std::vector<std::string>& events, const std::string& text) {
    return std::any_of(events.begin(), events.end(), [&](const std::string& event) {
      return event.find(text) != std::string::npos;
    });
  }

  testing::TempDir dir;
  testing::RecordingSink sink;        // outlives the actor system
  std::string placement = "binpack";  // the hub's --placement at the next start()
  std::shared_ptr<HubIoMetrics> io_metrics;  // the store's commits counted here, when set
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

}  // namespace gantry::actors
