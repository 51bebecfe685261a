// The cluster role's node socket with keys, against real node-role agents on
// loopback: a node whose key is neither the cluster agent's own nor listed in
// --node-keys is refused in the handshake and never heard (it retries, and is
// refused again); a listed one, and one sharing the cluster agent's keypair
// (the DaemonSet default), are.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <zmq.hpp>

#include "agents/agent_core.hpp"
#include "agents/agent_loop.hpp"
#include "agents/cluster_role.hpp"
#include "agents/node_role.hpp"
#include "agents/sim_executor.hpp"
#include "support/curve_keys.hpp"

namespace gantry::agents {
namespace {

using namespace std::chrono_literals;

constexpr auto kAwaitGuard = 30s;  // a failure guard, not a sleep

class StopPipe {
 public:
  StopPipe() {
    if (::pipe(fds_) != 0) throw std::runtime_error("pipe failed");
  }
  ~StopPipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int read_fd() const { return fds_[0]; }
  void stop() { ASSERT_EQ(::write(fds_[1], "x", 1), 1); }

 private:
  int fds_[2];
};

// A node-role agent on its own thread until the fixture goes.
class NodeAgent {
 public:
  NodeAgent(const std::string& endpoint, const std::string& node,
            const support::CurveClientKeys& keys) {
    NodeRoleOptions options;
    options.cluster_agent_endpoint = endpoint;
    options.cluster = "east";
    options.node = node;
    options.report_interval_ms = 50;
    options.nvml_library = "/nonexistent/libnvidia-ml.so.1";  // no GPUs: not the point here
    options.keys = keys;
    running_ = std::async(std::launch::async,
                          [options, this] { return run_node_role(options, stop_.read_fd()); });
  }
  ~NodeAgent() {
    stop_.stop();
    running_.wait();
  }

 private:
  StopPipe stop_;
  std::future<int> running_;
};

struct NodeKeysTest : ::testing::Test {
  support::CurveKeyPair cluster_keys = support::generate_curve_keypair("east-agent");
  support::CurveKeyPair listed = support::generate_curve_keypair("listed-node");
  support::CurveKeyPair unlisted = support::generate_curve_keypair("rogue");
  SimExecutor executor;
  AgentCore core{"east", protocol::Labels{}, executor};
  ClusterRole role{options()};

  ClusterRoleOptions options() const {
    ClusterRoleOptions options;
    options.node_listen = "tcp://127.0.0.1:*";
    options.node_keypair = cluster_keys;
    options.node_keys = {cluster_keys.public_key, listed.public_key};
    options.nodes_apply_interval_ms = 0;
    return options;
  }

  support::CurveClientKeys node_keys(const support::CurveKeyPair& own) const {
    return {cluster_keys.public_key, own};
  }

  // Turns the loop as the agent loop does until `done` (a guard fails the
  // test after kAwaitGuard).
  void serve_until(const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + kAwaitGuard;
    while (!done()) {
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "still waiting";
      std::vector<zmq_pollitem_t> items;
      role.add_poll_items(items);
      zmq::poll(items, 100ms);
      Outbox out;
      role.on_polled(items.data(), items.size(), steady_now_ms(), core, out);
    }
  }

  std::vector<std::string> node_names() const {
    std::vector<std::string> names;
    for (const auto& node : core.usage_report().nodes) names.push_back(node.name);
    return names;
  }
};

TEST_F(NodeKeysTest, AnUnlistedNodeIsRefusedAndNeverHeardAListedOneIs) {
  NodeAgent rogue(role.node_endpoint(), "rogue-node", node_keys(unlisted));
  serve_until([&] { return role.refused_node_keys() >= 1; });
  EXPECT_EQ(role.reporting_nodes(), 0u);

  NodeAgent good(role.node_endpoint(), "gpu-1", node_keys(listed));
  serve_until([&] { return role.reporting_nodes() >= 1; });
  // libzmq drops a refused connection for good; the node role retries with a
  // fresh socket at its next report, and is refused again.
  const std::size_t refused_before = role.refused_node_keys();
  serve_until([&] { return role.refused_node_keys() > refused_before; });
  EXPECT_EQ(role.reporting_nodes(), 1u);
  EXPECT_EQ(node_names(), std::vector<std::string>{"gpu-1"});
}

TEST_F(NodeKeysTest, ANodeSharingTheClusterAgentsKeypairIsHeard) {
  NodeAgent shared(role.node_endpoint(), "gpu-2", node_keys(cluster_keys));
  serve_until([&] { return role.reporting_nodes() >= 1; });
  EXPECT_EQ(role.refused_node_keys(), 0u);
  EXPECT_EQ(node_names(), std::vector<std::string>{"gpu-2"});
}

}  // namespace
}  // namespace gantry::agents
