// The client over HTTPS: CA trust, host name checks, client certificates,
// kubeconfig files, watches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <memory>

#include "kube/client.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/guarded.hpp"
#include "tests/kube/test_objects.hpp"
#include "tests/kube/test_pki.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using ::testing::HasSubstr;
using testing::kThings;
using testing::TestPki;

// One PKI for the suite (key generation is the slow part); a fixture that
// requires client certificates signed by its CA per test.
class ClientOverTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_dir_ = new support::TempDir("kube-pki");
    pki_ = new TestPki(testing::make_test_pki(pki_dir_->path()));
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete pki_dir_;
  }

  static ClusterAccess trusted_access(const std::string& server) {
    return ClusterAccess{.server = server,
                         .ca_pem = pki_->ca_pem,
                         .client_cert_pem = pki_->client_cert_pem,
                         .client_key_pem = pki_->client_key_pem};
  }

  static std::string error_of(Client& client) {
    try {
      client.get(kThings);
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "(no error)";
  }

  static FixtureServer start_fixture(const std::filesystem::path& cert,
                                     const std::filesystem::path& key,
                                     const std::filesystem::path& log) {
    return FixtureServer({"--tls-cert", cert.string(), "--tls-key", key.string(), "--client-ca",
                          pki_->ca_file.string()},
                         log);
  }

  static inline support::TempDir* pki_dir_ = nullptr;
  static inline TestPki* pki_ = nullptr;
  support::TempDir dir_{"kube-tls"};
  std::unique_ptr<FixtureServer> fixture_ = std::make_unique<FixtureServer>(
      std::vector<std::string>{"--tls-cert", pki_->server_cert_file.string(), "--tls-key",
                               pki_->server_key_file.string(), "--client-ca",
                               pki_->ca_file.string()},
      dir_.path() / "fixture.log");
};

TEST_F(ClientOverTls, CaAndClientCertificateGetIn) {
  Client client(trusted_access(fixture_->url("https")));
  ASSERT_EQ(client.post(kThings, testing::thing("a").dump()).status, 201);
  const Response listed = client.get(kThings);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(json::parse(listed.body)["items"].size(), 1u);
}

TEST_F(ClientOverTls, ServerNamedLocalhostMatchesItsDnsName) {
  Client client(trusted_access("https://localhost:" + std::to_string(fixture_->port())));
  EXPECT_EQ(client.get(kThings).status, 200);
}

TEST_F(ClientOverTls, UntrustedServerCertificateFailsNamingTheServer) {
  ClusterAccess access = trusted_access(fixture_->url("https"));
  access.ca_pem = pki_->other_ca_pem;
  Client client(access);
  const std::string error = error_of(client);
  EXPECT_THAT(error, HasSubstr("kube server " + access.server));
  EXPECT_THAT(error, HasSubstr("certificate verify failed"));
}

TEST_F(ClientOverTls, InsecureSkipVerifyTrustsAnyServer) {
  ClusterAccess access = trusted_access(fixture_->url("https"));
  access.ca_pem = pki_->other_ca_pem;
  access.insecure_skip_tls_verify = true;
  Client client(access);
  EXPECT_EQ(client.get(kThings).status, 200);
}

TEST_F(ClientOverTls, MissingClientCertificateIsRefused) {
  ClusterAccess access = trusted_access(fixture_->url("https"));
  access.client_cert_pem.clear();
  access.client_key_pem.clear();
  Client client(access);
  EXPECT_THAT(error_of(client), HasSubstr("kube server " + access.server));
}

TEST_F(ClientOverTls, CertificateForAnotherHostIsRefused) {
  fixture_.reset();
  FixtureServer elsewhere = start_fixture(pki_->elsewhere_cert_file, pki_->elsewhere_key_file,
                                          dir_.path() / "elsewhere.log");
  Client client(trusted_access(elsewhere.url("https")));
  const std::string error = error_of(client);
  EXPECT_THAT(error, HasSubstr("TLS handshake"));
  EXPECT_THAT(error, HasSubstr("mismatch"));
}

TEST_F(ClientOverTls, BadPemIsNamed) {
  ClusterAccess access = trusted_access(fixture_->url("https"));
  access.client_key_pem = "not a key";
  try {
    Client client(access);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("client key"));
  }
}

TEST_F(ClientOverTls, KubeconfigWithRelativeFilesReachesTheServer) {
  const std::string relative_ca = std::filesystem::relative(pki_->ca_file, dir_.path()).string();
  const auto file = dir_.write("config",
                               "current-context: fixture\n"
                               "clusters:\n"
                               "- name: fixture\n"
                               "  cluster:\n"
                               "    server: " +
                                   fixture_->url("https") + "\n" +
                                   "    certificate-authority: " + relative_ca + "\n" +
                                   "contexts:\n"
                                   "- {name: fixture, context: {cluster: fixture, user: me}}\n"
                                   "users:\n"
                                   "- name: me\n"
                                   "  user:\n"
                                   "    client-certificate: " +
                                   pki_->client_cert_file.string() + "\n" +
                                   "    client-key: " + pki_->client_key_file.string() + "\n");
  Client client(load_kubeconfig(file));
  EXPECT_EQ(client.get(kThings).status, 200);
}

TEST_F(ClientOverTls, WatchStreamsOverTls) {
  Client client(trusted_access(fixture_->url("https")));
  testing::Guarded<std::vector<std::string>> names;
  std::atomic<bool> stop{false};
  auto ended = std::async(std::launch::async, [&] {
    return client.watch(
        kThings, "0",
        [&](const json& event) {
          if (event["type"] == "ADDED") {
            names.update([&](auto& all) { all.push_back(event["object"]["metadata"]["name"]); });
          }
        },
        stop);
  });
  ASSERT_EQ(client.post(kThings, testing::thing("a").dump()).status, 201);
  ASSERT_EQ(client.post(kThings, testing::thing("b").dump()).status, 201);
  EXPECT_TRUE(names.await([](const auto& all) { return all.size() >= 2; }));
  stop = true;
  ASSERT_EQ(ended.wait_for(testing::kAwaitGuard), std::future_status::ready);
  EXPECT_EQ(ended.get(), Client::WatchEnd::kStopped);
  EXPECT_EQ(names.snapshot(), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace gantry::kube
