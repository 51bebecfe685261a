// gantryctl's keys: where it looks for them, what it says when they are
// missing, --insecure, and `keys generate`.
#include "console/client_keys.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sstream>

#include "console/gantryctl.hpp"
#include "support/curve_keys.hpp"
#include "support/temp_dir.hpp"
#include "tests/console/fake_hub.hpp"

namespace gantry::console {
namespace {

using testing::FakeHub;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

Result run(const std::vector<std::string>& args, const Environment& environment) {
  std::istringstream in;
  std::ostringstream out, err;
  Result result;
  result.status = run_gantryctl(args, environment, in, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

FakeHub::Handler empty_list() {
  return testing::always_reply(protocol::ListReply{});
}

Environment with_config_dir(const std::filesystem::path& dir) {
  Environment environment;
  environment.config_dir = dir.string();
  return environment;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ClientKeys, MissingKeysExit2NamingTheFilesAndHowToMakeThem) {
  FakeHub hub(empty_list());
  const support::TempDir config("gantryctl-config");
  const Result result =
      run({"--hub", hub.endpoint(), "get", "jobs"}, with_config_dir(config.path()));
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, (config.path() / "hub.pub").string())) << result.err;
  EXPECT_TRUE(contains(result.err, (config.path() / "gantryctl.key").string())) << result.err;
  EXPECT_TRUE(
      contains(result.err, "gantryctl keys generate gantryctl --dir " + config.path().string()))
      << result.err;
  EXPECT_TRUE(contains(result.err, "--insecure")) << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(ClientKeys, ConfigDirectoryFollowsGantryThenXdgThenHome) {
  Environment environment;
  environment.home = "/home/ada";
  EXPECT_EQ(config_directory(environment), "/home/ada/.config/gantry");
  environment.xdg_config_home = "/xdg";
  EXPECT_EQ(config_directory(environment), "/xdg/gantry");
  environment.config_dir = "/etc/gantry-admin";
  EXPECT_EQ(config_directory(environment), "/etc/gantry-admin");
  EXPECT_EQ(config_directory(Environment{}), "");
}

TEST(ClientKeys, FlagsWinOverTheEnvironmentWhichWinsOverTheConfigDirectory) {
  const support::TempDir dir("gantryctl-keys");
  const auto by_flag = support::generate_curve_keypair("by-flag");
  const auto by_env = support::generate_curve_keypair("by-env");
  const auto by_default = support::generate_curve_keypair("gantryctl");
  for (const auto& keys : {by_flag, by_env, by_default}) {
    support::write_key_files(keys, dir.path());
  }
  const auto hub_by_env = dir.write("hub-env.pub", by_env.public_key);
  dir.write("hub.pub", by_default.public_key);

  Environment environment = with_config_dir(dir.path());
  Invocation invocation;
  auto keys = client_keys(invocation, environment);
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->own.public_key, by_default.public_key);
  EXPECT_EQ(keys->server_public_key, by_default.public_key);

  environment.key = (dir.path() / "by-env.key").string();
  environment.hub_key = hub_by_env.string();
  keys = client_keys(invocation, environment);
  EXPECT_EQ(keys->own.public_key, by_env.public_key);
  EXPECT_EQ(keys->server_public_key, by_env.public_key);

  invocation.key_file = (dir.path() / "by-flag.key").string();
  invocation.hub_key_file = (dir.path() / "by-flag.pub").string();
  keys = client_keys(invocation, environment);
  EXPECT_EQ(keys->own.public_key, by_flag.public_key);
  EXPECT_EQ(keys->server_public_key, by_flag.public_key);

  invocation.insecure = true;
  EXPECT_FALSE(client_keys(invocation, environment));
}

TEST(ClientKeys, InsecureTalksPlaintextWithAWarning) {
  FakeHub hub(empty_list(), FakeHub::Transport::kPlaintext);
  const support::TempDir empty_config("gantryctl-config");
  const Result result = run({"--hub", hub.endpoint(), "get", "jobs", "--insecure"},
                            with_config_dir(empty_config.path()));
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "warning: --insecure")) << result.err;
  EXPECT_EQ(hub.requests().size(), 1u);
}

TEST(ClientKeys, GeneratedKeypairIsPrintedAndWorksWithTheHub) {
  FakeHub hub(empty_list());
  const support::TempDir dir("gantryctl-keys");
  const auto keys_dir = dir.path() / "keys";
  const Result generated = run({"keys", "generate", "alice", "--dir", keys_dir.string()}, {});
  ASSERT_EQ(generated.status, 0) << generated.err;

  const std::string public_key = support::read_public_key_file(keys_dir / "alice.pub");
  EXPECT_EQ(generated.out.substr(0, generated.out.find('\n')), public_key);
  EXPECT_TRUE(contains(generated.out, "  - name: alice\n    public_key: \"" + public_key + "\"\n"))
      << generated.out;
  struct stat status {};
  ASSERT_EQ(::stat((keys_dir / "alice.key").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);

  const auto hub_key = dir.write("hub.pub", hub.keys().public_key);
  const Result listed = run({"--hub", hub.endpoint(), "--hub-key", hub_key.string(), "--key",
                             (keys_dir / "alice.key").string(), "get", "jobs"},
                            {});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(hub.requests().size(), 1u);
}

TEST(ClientKeys, GenerateRefusesToReplaceAnExistingKey) {
  const support::TempDir dir("gantryctl-keys");
  ASSERT_EQ(run({"keys", "generate", "alice", "--dir", dir.path().string()}, {}).status, 0);
  const Result again = run({"keys", "generate", "alice", "--dir", dir.path().string()}, {});
  EXPECT_EQ(again.status, 1);
  EXPECT_TRUE(contains(again.err, "already exists")) << again.err;
}

TEST(ClientKeys, WrongHubKeyGetsNoAnswerAndAHint) {
  FakeHub hub(empty_list());
  const support::TempDir config("gantryctl-config");
  support::write_key_files(support::generate_curve_keypair("gantryctl"), config.path());
  config.write("hub.pub", support::generate_curve_keypair("impostor").public_key);
  const Result result = run({"--hub", hub.endpoint(), "--timeout", "300ms", "get", "jobs"},
                            with_config_dir(config.path()));
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "did not answer within 300ms")) << result.err;
  EXPECT_TRUE(contains(result.err, "is the hub's public key right")) << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

// A hub whose access.yaml does not list the key says so in the handshake:
// reported at once, not after the timeout.
TEST(ClientKeys, KeyTheHubRefusesIsReportedAtOnceNamingTheKey) {
  FakeHub hub(empty_list(), FakeHub::Transport::kCurveRefusingEveryKey);
  const support::TempDir config("gantryctl-config");
  const support::CurveKeyPair own = support::generate_curve_keypair("gantryctl");
  support::write_key_files(own, config.path());
  config.write("hub.pub", hub.keys().public_key);
  const Result result = run({"--hub", hub.endpoint(), "--timeout", "60s", "get", "jobs"},
                            with_config_dir(config.path()));
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "refused this client's key " + own.public_key + " (ZAP 400)"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "access.yaml")) << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(ClientKeys, UnreadableKeyFileExits2NamingIt) {
  FakeHub hub(empty_list());
  const support::TempDir config("gantryctl-config");
  support::write_key_files(support::generate_curve_keypair("gantryctl"), config.path());
  config.write("hub.pub", hub.keys().public_key);
  const auto public_only = (config.path() / "gantryctl.pub").string();
  const Result result = run({"--hub", hub.endpoint(), "--key", public_only, "get", "jobs"},
                            with_config_dir(config.path()));
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, public_only)) << result.err;
  EXPECT_TRUE(contains(result.err, "no secret-key")) << result.err;
}

}  // namespace
}  // namespace gantry::console
