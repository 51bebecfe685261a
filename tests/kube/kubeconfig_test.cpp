#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "kube/cluster_access.hpp"
#include "support/temp_dir.hpp"

namespace gantry::kube {
namespace {

using ::testing::HasSubstr;

// base64 of "CA PEM", "CERT PEM", "KEY PEM".
constexpr const char* kCaData = "Q0EgUEVN";
constexpr const char* kCertData = "Q0VSVCBQRU0=";
constexpr const char* kKeyData = "S0VZIFBFTQ==";

std::string two_context_kubeconfig() {
  return std::string(R"(apiVersion: v1
kind: Config
current-context: east
clusters:
- name: east-cluster
  cluster:
    server: https://east.example:6443
    certificate-authority-data: )") +
         kCaData + R"(
- name: west-cluster
  cluster:
    server: https://west.example:6443
    insecure-skip-tls-verify: true
contexts:
- name: east
  context: {cluster: east-cluster, user: east-admin}
- name: west
  context: {cluster: west-cluster, user: west-reader}
users:
- name: east-admin
  user:
    client-certificate-data: )" +
         kCertData + R"(
    client-key-data: )" +
         kKeyData + R"(
- name: west-reader
  user:
    token: west-token
)";
}

std::string error_of(const std::filesystem::path& file, const std::string& context = "") {
  try {
    load_kubeconfig(file, context);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(Kubeconfig, CurrentContextReadsDataFields) {
  support::TempDir dir;
  const auto file = dir.write("config", two_context_kubeconfig());
  const ClusterAccess access = load_kubeconfig(file);
  EXPECT_EQ(access.server, "https://east.example:6443");
  EXPECT_EQ(access.ca_pem, "CA PEM");
  EXPECT_EQ(access.client_cert_pem, "CERT PEM");
  EXPECT_EQ(access.client_key_pem, "KEY PEM");
  EXPECT_EQ(access.bearer_token, "");
  EXPECT_FALSE(access.insecure_skip_tls_verify);
}

TEST(Kubeconfig, NamedContextWinsOverCurrentContext) {
  support::TempDir dir;
  const auto file = dir.write("config", two_context_kubeconfig());
  const ClusterAccess access = load_kubeconfig(file, "west");
  EXPECT_EQ(access.server, "https://west.example:6443");
  EXPECT_TRUE(access.insecure_skip_tls_verify);
  EXPECT_EQ(access.bearer_token, "west-token");
  EXPECT_EQ(access.ca_pem, "");
  EXPECT_EQ(access.client_cert_pem, "");
}

TEST(Kubeconfig, RelativeFilesResolveAgainstTheKubeconfigFolder) {
  support::TempDir dir;
  std::filesystem::create_directories(dir.path() / "kube" / "certs");
  dir.write("kube/certs/ca.crt", "CA FILE");
  dir.write("kube/certs/client.crt", "CERT FILE");
  dir.write("kube/certs/client.key", "KEY FILE");
  dir.write("kube/token", "file-token\n");
  const auto file = dir.write("kube/config", R"(
current-context: c
clusters:
- name: c
  cluster: {server: "https://c.example", certificate-authority: certs/ca.crt}
contexts:
- name: c
  context: {cluster: c, user: u}
users:
- name: u
  user:
    client-certificate: certs/client.crt
    client-key: )" + (dir.path() / "kube/certs/client.key").string() +
                                                 R"(
    tokenFile: token
)");
  const ClusterAccess access = load_kubeconfig(file);
  EXPECT_EQ(access.ca_pem, "CA FILE");
  EXPECT_EQ(access.client_cert_pem, "CERT FILE");
  EXPECT_EQ(access.client_key_pem, "KEY FILE");
  EXPECT_EQ(access.bearer_token, "file-token");
  EXPECT_EQ(access.bearer_token_file, (dir.path() / "kube/token").string());
}

TEST(Kubeconfig, DataFieldWinsOverFileField) {
  support::TempDir dir;
  const auto file = dir.write("config", std::string(R"(
current-context: c
clusters:
- name: c
  cluster:
    server: https://c.example
    certificate-authority: does-not-exist.crt
    certificate-authority-data: )") + kCaData +
                                            R"(
contexts:
- {name: c, context: {cluster: c}}
)");
  EXPECT_EQ(load_kubeconfig(file).ca_pem, "CA PEM");
}

TEST(Kubeconfig, MissingContextIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", two_context_kubeconfig());
  const std::string error = error_of(file, "north");
  EXPECT_THAT(error, HasSubstr("kubeconfig " + file.string()));
  EXPECT_THAT(error, HasSubstr("contexts[name=north]: not found"));
}

TEST(Kubeconfig, MissingServerIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
clusters: [{name: c, cluster: {insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  EXPECT_THAT(error_of(file), HasSubstr("clusters[name=c].cluster.server: missing"));
}

TEST(Kubeconfig, MissingClusterEntryIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
contexts: [{name: c, context: {cluster: gone}}]
)");
  EXPECT_THAT(error_of(file), HasSubstr("clusters[name=gone]: not found"));
}

TEST(Kubeconfig, NoCurrentContextAndNoneAskedForIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", "clusters: []\n");
  EXPECT_THAT(error_of(file), HasSubstr("current-context: missing"));
}

TEST(Kubeconfig, UnreadableCertificateFileNamesFieldAndPath) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c", certificate-authority: nowhere/ca.crt}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  const std::string error = error_of(file);
  EXPECT_THAT(error, HasSubstr("clusters[name=c].cluster.certificate-authority: cannot read"));
  EXPECT_THAT(error, HasSubstr((dir.path() / "nowhere/ca.crt").string()));
}

TEST(Kubeconfig, BadBase64IsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate-data: "not*base64", client-key-data: S0VZIFBFTQ==}}]
)");
  EXPECT_THAT(error_of(file),
              HasSubstr("users[name=u].user.client-certificate-data: not valid base64"));
}

TEST(Kubeconfig, CertificateWithoutKeyIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate-data: Q0VSVCBQRU0=}}]
)");
  EXPECT_THAT(error_of(file), HasSubstr("users[name=u].user.client-key: missing"));
}

TEST(Kubeconfig, BadBooleanIsNamedWithItsValue) {
  support::TempDir dir;
  const auto file = dir.write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c", insecure-skip-tls-verify: maybe}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  const std::string error = error_of(file);
  EXPECT_THAT(error, HasSubstr("clusters[name=c].cluster.insecure-skip-tls-verify: not a boolean"));
  EXPECT_THAT(error, HasSubstr("maybe"));
}

std::string exec_kubeconfig(const std::string& exec) {
  return R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c:6443", certificate-authority-data: Q0EgUEVN}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {exec: )" +
         exec + "}}]\n";
}

// An EKS kubeconfig's user, as `aws eks update-kubeconfig` writes it.
TEST(Kubeconfig, AnExecPluginIsReadAsClientGoReadsIt) {
  support::TempDir dir;
  const auto file = dir.write("config", exec_kubeconfig(R"({
    apiVersion: client.authentication.k8s.io/v1beta1, command: aws,
    args: [--region, eu-west-1, eks, get-token, --cluster-name, ml],
    env: [{name: AWS_PROFILE, value: training}], installHint: "install the AWS CLI",
    provideClusterInfo: true})"));
  const ClusterAccess access = load_kubeconfig(file);
  ASSERT_TRUE(access.exec);
  const ExecPlugin& plugin = *access.exec;
  EXPECT_EQ(plugin.command, "aws");  // a bare name: looked up on PATH
  EXPECT_EQ(plugin.args, (std::vector<std::string>{"--region", "eu-west-1", "eks", "get-token",
                                                   "--cluster-name", "ml"}));
  EXPECT_EQ(plugin.env,
            (std::vector<std::pair<std::string, std::string>>{{"AWS_PROFILE", "training"}}));
  EXPECT_EQ(plugin.api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(plugin.install_hint, "install the AWS CLI");
  EXPECT_TRUE(plugin.provide_cluster_info);
  EXPECT_EQ(plugin.server, "https://c:6443");
  EXPECT_EQ(plugin.ca_pem, "CA PEM");
  EXPECT_TRUE(access.bearer_token.empty());

  const auto relative = dir.write("relative", exec_kubeconfig(R"({
    apiVersion: client.authentication.k8s.io/v1, command: ./bin/get-token, interactiveMode: Never})"));
  EXPECT_EQ(load_kubeconfig(relative).exec->command, (dir.path() / "./bin/get-token").string());
}

TEST(Kubeconfig, AnExecPluginGantryCannotRunIsRefusedByName) {
  support::TempDir dir;
  const auto error_with = [&](const std::string& exec) {
    return error_of(dir.write("config", exec_kubeconfig(exec)));
  };
  EXPECT_THAT(error_with("{command: gke-gcloud-auth-plugin}"),
              HasSubstr("users[name=u].user.exec.apiVersion: must be "
                        "client.authentication.k8s.io/v1 or /v1beta1"));
  EXPECT_THAT(error_with("{apiVersion: client.authentication.k8s.io/v1, command: kubelogin}"),
              HasSubstr("users[name=u].user.exec.interactiveMode: missing"));
  EXPECT_THAT(error_with("{apiVersion: client.authentication.k8s.io/v1, command: kubelogin, "
                         "interactiveMode: Always}"),
              HasSubstr("the plugin needs a terminal, and Gantry runs without one"));
  EXPECT_THAT(error_with("{apiVersion: client.authentication.k8s.io/v1beta1}"),
              HasSubstr("users[name=u].user.exec.command: missing"));
  const auto provider = dir.write("provider", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://c"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {auth-provider: {name: gcp}}}]
)");
  EXPECT_THAT(error_of(provider), HasSubstr("users[name=u].user.auth-provider: not supported"));
}

TEST(Kubeconfig, MissingFileIsNamed) {
  support::TempDir dir;
  const auto file = dir.path() / "absent";
  EXPECT_THAT(error_of(file), HasSubstr("kubeconfig " + file.string() + ": cannot read"));
}

TEST(Kubeconfig, InvalidYamlIsNamed) {
  support::TempDir dir;
  const auto file = dir.write("config", "clusters: [unclosed\n");
  EXPECT_THAT(error_of(file), HasSubstr("kubeconfig " + file.string() + ": yaml: not valid YAML"));
}

}  // namespace
}  // namespace gantry::kube
