// The two job store backends, opened the way the hub opens them, over state
// that outlives each opening: a state directory (SQLite), or a real etcd
// (tests/etcd/etcd_server.hpp) and a key prefix. The contract tests run the
// same behaviour against both.
#pragma once

#include <memory>
#include <string>

#include "actors/etcd_job_store.hpp"
#include "actors/job_store.hpp"
#include "actors/sqlite_job_store.hpp"
#include "support/temp_dir.hpp"
#include "tests/etcd/etcd_server.hpp"

namespace gantry::actors::testing {

class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  // A store on the backend's state; each call opens it again.
  virtual std::unique_ptr<JobStore> open() = 0;
};

class SqliteBackend : public StoreBackend {
 public:
  std::unique_ptr<JobStore> open() override {
    return std::make_unique<SqliteJobStore>(dir_.path());
  }

 private:
  support::TempDir dir_{"gantry-store-test"};
};

class EtcdBackend : public StoreBackend {
 public:
  // kSecured: etcd serves https and asks for a client certificate
  // (--client-cert-auth), its authentication on; the store gives both.
  enum class Security { kPlain, kSecured };
  static constexpr const char* kUser = "gantry-hub";
  static constexpr const char* kPassword = "hub-secret";

  explicit EtcdBackend(Security security = Security::kPlain)
      : etcd_({.tls = security == Security::kSecured}), access_(etcd_.client_access()) {
    if (security == Security::kSecured) {
      etcd_.enable_auth(kUser, kPassword);
      access_.auth = etcd::Credentials{kUser, kPassword};
    }
  }

  std::unique_ptr<JobStore> open() override { return open_as("test-hub"); }

  std::unique_ptr<EtcdJobStore> open_as(const std::string& identity,
                                        WriterClaimOptions claim = {}) {
    claim.identity = identity;
    return std::make_unique<EtcdJobStore>(address(), std::move(claim));
  }
  EtcdStoreAddress address() const { return {{etcd_.endpoint()}, "/gantry-test/", access_}; }
  etcd::Client client() const {
    etcd::TransportOptions options;
    options.access = access_;
    return etcd::Client({etcd_.endpoint()}, options);
  }
  etcd::testing::EtcdServer& server() { return etcd_; }

 private:
  etcd::testing::EtcdServer etcd_;
  etcd::Access access_;
};

}  // namespace gantry::actors::testing
