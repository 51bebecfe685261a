#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "kube/cluster_access.hpp"
#include "support/temp_dir.hpp"

namespace gantry::kube {
namespace {

using ::testing::HasSubstr;

// Sets the pod's service variables for one test and puts back what was there.
class InClusterAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  static void set_service(const char* host, const char* port) {
    ::setenv("KUBERNETES_SERVICE_HOST", host, 1);
    ::setenv("KUBERNETES_SERVICE_PORT", port, 1);
  }

  support::TempDir dir_;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(InClusterAccess, ReadsServiceTokenAndCa) {
  set_service("10.96.0.1", "443");
  dir_.write("token", "service-account-token\n");
  dir_.write("ca.crt", "CLUSTER CA");
  const ClusterAccess access = in_cluster_access(dir_.path());
  EXPECT_EQ(access.server, "https://10.96.0.1:443");
  EXPECT_EQ(access.bearer_token, "service-account-token");
  EXPECT_EQ(access.bearer_token_file, (dir_.path() / "token").string());
  EXPECT_EQ(access.ca_pem, "CLUSTER CA");
  EXPECT_FALSE(access.insecure_skip_tls_verify);
}

TEST_F(InClusterAccess, BracketsAnIpv6ServiceHost) {
  set_service("fd00::1", "6443");
  dir_.write("token", "t");
  EXPECT_EQ(in_cluster_access(dir_.path()).server, "https://[fd00::1]:6443");
}

TEST_F(InClusterAccess, WithoutCaFileTrustsTheSystemCas) {
  set_service("10.96.0.1", "443");
  dir_.write("token", "t");
  EXPECT_EQ(in_cluster_access(dir_.path()).ca_pem, "");
}

TEST_F(InClusterAccess, MissingServiceHostIsNamed) {
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  dir_.write("token", "t");
  try {
    in_cluster_access(dir_.path());
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("KUBERNETES_SERVICE_HOST is not set"));
  }
}

TEST_F(InClusterAccess, MissingTokenNamesTheFile) {
  set_service("10.96.0.1", "443");
  try {
    in_cluster_access(dir_.path());
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot read " + (dir_.path() / "token").string()));
  }
}

}  // namespace
}  // namespace gantry::kube
