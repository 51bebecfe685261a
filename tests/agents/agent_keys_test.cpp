// gantry-agent's key flags: what each role reads, the environment fallbacks,
// and the refusal to start without keys unless --insecure.
#include "agents/agent_keys.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/curve_keys.hpp"
#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

std::string error_of(const AgentOptions& options, const KeyEnvironment& environment = {}) {
  try {
    load_agent_keys(options, environment);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct AgentKeysTest : ::testing::Test {
  support::TempDir dir{"agent-keys"};
  support::CurveKeyPair hub = generate("hub");
  support::CurveKeyPair agent = generate("east-agent");
  support::CurveKeyPair other = generate("other");

  support::CurveKeyPair generate(const std::string& name) {
    support::CurveKeyPair keys = support::generate_curve_keypair(name);
    support::write_key_files(keys, dir.path());
    return keys;
  }
  std::string file(const std::string& name) const { return (dir.path() / name).string(); }

  static AgentOptions parsed(std::vector<std::string> args) { return parse_agent_options(args); }
};

TEST_F(AgentKeysTest, FlagsAreParsed) {
  const AgentOptions options =
      parsed({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "east", "--node-listen",
              "tcp://*:7802", "--hub-key", "h.pub", "--key", "a.key", "--node-keys", "nodes.txt"});
  EXPECT_EQ(options.hub_key_file, "h.pub");
  EXPECT_EQ(options.key_file, "a.key");
  EXPECT_EQ(options.node_keys_file, "nodes.txt");
  EXPECT_FALSE(options.insecure);
  const AgentOptions node = parsed({"--role", "node", "--cluster-agent", "tcp://c:7802",
                                    "--cluster-key", "c.pub", "--insecure"});
  EXPECT_EQ(node.cluster_key_file, "c.pub");
  EXPECT_TRUE(node.insecure);
}

TEST_F(AgentKeysTest, WithoutKeysTheAgentRefusesNamingTheFlags) {
  const AgentOptions standalone = parsed({"--hub", "tcp://h:1", "--inventory", "i.yaml"});
  const std::string message = error_of(standalone);
  for (const char* named : {"--hub-key", "--key", "$GANTRY_HUB_KEY", "$GANTRY_KEY", "--insecure",
                            "gantryctl keys generate"}) {
    EXPECT_TRUE(contains(message, named)) << named << " in: " << message;
  }
  AgentOptions only_key = standalone;
  only_key.key_file = file("east-agent.key");
  EXPECT_TRUE(contains(error_of(only_key), "--hub-key FILE (or $GANTRY_HUB_KEY): is required"));

  const AgentOptions node = parsed({"--role", "node", "--cluster-agent", "tcp://c:1"});
  EXPECT_TRUE(contains(error_of(node), "--key FILE (or $GANTRY_KEY): is required"));
}

TEST_F(AgentKeysTest, InsecureNeedsNoKeys) {
  AgentOptions options = parsed({"--hub", "tcp://h:1", "--inventory", "i.yaml", "--insecure"});
  const AgentKeys keys = load_agent_keys(options, {});
  EXPECT_FALSE(keys.hub);
  EXPECT_FALSE(keys.node_server);
  EXPECT_FALSE(keys.cluster_agent);
}

TEST_F(AgentKeysTest, TheEnvironmentStandsInForMissingFlags) {
  AgentOptions options = parsed({"--hub", "tcp://h:1", "--inventory", "i.yaml"});
  AgentKeys keys = load_agent_keys(options, {file("hub.pub"), file("east-agent.key")});
  ASSERT_TRUE(keys.hub);
  EXPECT_EQ(keys.hub->server_public_key, hub.public_key);
  EXPECT_EQ(keys.hub->own.secret_key, agent.secret_key);

  options.key_file = file("other.key");  // a flag wins over its variable
  keys = load_agent_keys(options, {file("hub.pub"), file("east-agent.key")});
  EXPECT_EQ(keys.hub->own.public_key, other.public_key);
}

TEST_F(AgentKeysTest, ClusterRoleServesItsNodesWithItsOwnKeyAndAcceptsTheListedOnes) {
  dir.write("nodes.txt", "# the node DaemonSet's keys\n\nother.pub\n" + hub.public_key + "\n");
  const AgentOptions options =
      parsed({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "east", "--node-listen",
              "tcp://127.0.0.1:*", "--hub-key", file("hub.pub"), "--key", file("east-agent.key"),
              "--node-keys", file("nodes.txt")});
  const AgentKeys keys = load_agent_keys(options, {});
  ASSERT_TRUE(keys.node_server);
  EXPECT_EQ(keys.node_server->public_key, agent.public_key);
  EXPECT_EQ(keys.node_keys,
            (std::vector<std::string>{agent.public_key, other.public_key, hub.public_key}));
  EXPECT_TRUE(keys.hub);
}

TEST_F(AgentKeysTest, NodeRoleTalksToItsOwnKeyUnlessGivenTheClusterKey) {
  AgentOptions options =
      parsed({"--role", "node", "--cluster-agent", "tcp://c:1", "--key", file("east-agent.key")});
  AgentKeys keys = load_agent_keys(options, {});
  ASSERT_TRUE(keys.cluster_agent);
  EXPECT_EQ(keys.cluster_agent->server_public_key, agent.public_key);
  EXPECT_FALSE(keys.hub);

  options.cluster_key_file = file("other.pub");
  keys = load_agent_keys(options, {});
  EXPECT_EQ(keys.cluster_agent->server_public_key, other.public_key);
}

TEST_F(AgentKeysTest, UnusableFilesAreNamedWithTheirFlag) {
  AgentOptions options = parsed({"--hub", "tcp://h:1", "--inventory", "i.yaml", "--hub-key",
                                 file("hub.pub"), "--key", file("east-agent.pub")});
  const std::string message = error_of(options);
  EXPECT_TRUE(contains(message, "--key: key file " + file("east-agent.pub"))) << message;

  dir.write("nodes.txt", "other.pub\nmissing.pub\n");
  options = parsed({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "east", "--node-listen",
                    "tcp://127.0.0.1:*", "--hub-key", file("hub.pub"), "--key",
                    file("east-agent.key"), "--node-keys", file("nodes.txt")});
  const std::string nodes_message = error_of(options);
  EXPECT_TRUE(
      contains(nodes_message, "--node-keys: node keys file " + file("nodes.txt") + " line 2"))
      << nodes_message;
  EXPECT_TRUE(contains(nodes_message, file("missing.pub"))) << nodes_message;
}

}  // namespace
}  // namespace gantry::agents
