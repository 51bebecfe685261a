// kubeconfig exec credentials (client-go's ExecCredential protocol) with a
// stub plugin: a shell script that counts its runs, keeps what it was given
// (arguments, environment, KUBERNETES_EXEC_INFO) and prints a credential —
// the first run's token one the API server no longer takes, later runs' the
// one it takes — against the fixture API server, which answers 401 to any
// other token.
#include "kube/exec_credential.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kube/client.hpp"
#include "support/rfc3339.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/test_objects.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using ::testing::HasSubstr;
using testing::kThings;

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

std::string credential(const std::string& token, const std::string& expiry = "") {
  json status = {{"token", token}};
  if (!expiry.empty()) status["expirationTimestamp"] = expiry;
  return json{{"apiVersion", kV1}, {"kind", "ExecCredential"}, {"status", status}}.dump();
}

std::string error_reading(const std::string& printed, const std::string& api_version = kV1) {
  try {
    read_exec_credential(printed, api_version);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ExecCredential, IsReadAsClientGoReadsIt) {
  const ExecCredential read = read_exec_credential(credential("t", "2030-01-02T03:04:05Z"), kV1);
  EXPECT_EQ(read.token, "t");
  EXPECT_EQ(read.expires, support::parse_rfc3339("2030-01-02T03:04:05Z"));
  EXPECT_FALSE(read_exec_credential(credential("t"), kV1).expires);
  EXPECT_THAT(
      error_reading(credential("t"), "client.authentication.k8s.io/v1beta1"),
      HasSubstr("apiVersion: the kubeconfig asks for client.authentication.k8s.io/v1beta1"));
  EXPECT_THAT(error_reading(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"})"),
              HasSubstr("kind: expected ExecCredential"));
  EXPECT_THAT(
      error_reading(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})"),
      HasSubstr("status: missing"));
  EXPECT_THAT(error_reading(R"({"apiVersion":"client.authentication.k8s.io/v1",)"
                            R"("kind":"ExecCredential","status":{"clientCertificateData":"x"}})"),
              HasSubstr("a client certificate, which Gantry does not take from a plugin"));
  EXPECT_THAT(error_reading(credential("t", "tomorrow")),
              HasSubstr("status.expirationTimestamp: not an RFC 3339 time (got \"tomorrow\")"));
  EXPECT_THAT(error_reading("Please log in"), HasSubstr("the plugin printed no JSON"));
}

class StubPlugin : public ::testing::Test {
 protected:
  StubPlugin() {
    const auto script = dir_.write("plugin.sh", R"(#!/bin/sh
dir=$(dirname "$0")
n=$(cat "$dir/runs" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$dir/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/exec-info"
echo "$@" > "$dir/args"
if [ "$n" -eq 1 ]; then token=revoked; else token=s3cret; fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
printf '"status":{"token":"%s","expirationTimestamp":"%s"}}' "$token" "$STUB_EXPIRES"
)");
    ::chmod(script.c_str(), 0755);
    plugin_.command = script.string();
    plugin_.args = {"get-token", "--cluster", "east"};
    plugin_.api_version = kV1;
    expires_in(std::chrono::hours(1));
  }

  void expires_in(std::chrono::seconds from_now) {
    plugin_.env = {
        {"STUB_EXPIRES", support::rfc3339_utc(std::chrono::system_clock::now() + from_now,
                                              support::SecondFraction::kNone)}};
  }

  std::string kept(const std::string& name) const {
    std::ifstream file(dir_.path() / name);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }
  int runs() const { return std::stoi(kept("runs")); }

  support::TempDir dir_{"exec-plugin"};
  ExecPlugin plugin_;
};

TEST_F(StubPlugin, RunsWithItsArgumentsEnvironmentAndExecInfo) {
  plugin_.provide_cluster_info = true;
  plugin_.server = "https://east.example:6443";
  plugin_.ca_pem = "CA PEM";
  EXPECT_EQ(run_exec_plugin(plugin_).token, "revoked");
  EXPECT_EQ(kept("args"), "get-token --cluster east\n");
  const json info = json::parse(kept("exec-info"));
  EXPECT_EQ(info["apiVersion"], kV1);
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://east.example:6443");
  EXPECT_EQ(info["spec"]["cluster"]["certificate-authority-data"], "Q0EgUEVN");  // base64
  plugin_.provide_cluster_info = false;
  run_exec_plugin(plugin_);
  EXPECT_FALSE(json::parse(kept("exec-info"))["spec"].contains("cluster"));
}

TEST_F(StubPlugin, APluginThatFailsOrIsMissingSaysWhy) {
  const auto failing = dir_.write("failing.sh", "#!/bin/sh\necho 'no session' >&2\nexit 3\n");
  ::chmod(failing.c_str(), 0755);
  plugin_.command = failing.string();
  try {
    run_exec_plugin(plugin_);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("exited with status 3"));
  }
  plugin_.command = "gantry-no-such-plugin";
  plugin_.install_hint = "install it with: apt install gantry-no-such-plugin";
  try {
    run_exec_plugin(plugin_);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot run \"gantry-no-such-plugin\""));
    EXPECT_THAT(error.what(), HasSubstr("install it with: apt install gantry-no-such-plugin"));
  }
}

class StubPluginAgainstTheApiServer : public StubPlugin {
 protected:
  FixtureServer fixture_{{"--token", "s3cret"}, dir_.path() / "fixture.log"};
};

// A refused token (401) runs the plugin again and the request is sent once
// more; a token that has not expired is reused without running the plugin.
TEST_F(StubPluginAgainstTheApiServer, ARefusedTokenIsRenewedAndAGoodOneKeptUntilItExpires) {
  Client client(ClusterAccess{.server = fixture_.url(), .exec = plugin_});
  EXPECT_EQ(client.get(kThings).status, 200);
  EXPECT_EQ(runs(), 2);  // "revoked" was refused, then "s3cret"
  EXPECT_EQ(client.get(kThings).status, 200);
  EXPECT_EQ(runs(), 2);

  expires_in(std::chrono::seconds(-60));  // every credential it prints has expired
  Client expiring(ClusterAccess{.server = fixture_.url(), .exec = plugin_});
  EXPECT_EQ(expiring.get(kThings).status, 200);
  EXPECT_EQ(expiring.get(kThings).status, 200);
  EXPECT_EQ(runs(), 4);  // once per request
}

}  // namespace
}  // namespace gantry::kube
