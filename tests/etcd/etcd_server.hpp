// A real etcd (Debian's etcd-server, /usr/bin/etcd) as a child process of the
// test: one member on free loopback ports with its data in a temporary
// directory, ready once its /health says so, killed in the destructor.
//
// With TLS it serves https with a certificate for 127.0.0.1 signed by a test
// CA (made with the openssl CLI, tests/kube/test_pki.hpp) and asks every
// client for a certificate that CA signed (--client-cert-auth). Its
// authentication can be turned on (enable_auth) and every token it gave
// ended (drop_tokens), both through the JSON gateway as etcdctl would.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "etcd/access.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/test_pki.hpp"

namespace gantry::etcd::testing {

struct EtcdServerOptions {
  bool tls = false;
};

class EtcdServer {
 public:
  static constexpr const char* kRootPassword = "root-secret";

  // Throws std::runtime_error with etcd's log when it does not become healthy.
  explicit EtcdServer(EtcdServerOptions options = {});
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // "http://127.0.0.1:<client port>", https:// with TLS.
  std::string endpoint() const;
  // What a client needs to reach it: with TLS the CA and a client
  // certificate it accepts (with no CommonName: etcd refuses gateway
  // requests from one with a CommonName once auth is on); no credentials.
  Access client_access() const;
  // The test PKI (TLS only): the other CA, a client certificate it signed.
  const kube::testing::TestPki& pki() const;

  // Turns etcd's authentication on: user root (kRootPassword) with the root
  // role, and `user` with `password`, allowed to read and write every key.
  void enable_auth(const std::string& user, const std::string& password);
  // Ends every token etcd gave (as root: auth disabled, then enabled again):
  // what a client's token meets when it expired or etcd forgot it.
  void drop_tokens();

  // Stops and continues the process (SIGSTOP / SIGCONT): connections stay
  // open but nothing answers, as behind a partition.
  void pause();
  void resume();

 private:
  // False when etcd exited before it was healthy (another process took one
  // of its ports in between); throws when it neither exits nor gets healthy.
  bool start();
  void spawn(std::uint16_t peer_port);
  bool healthy() const;
  void kill();
  std::string log() const;
  // POSTs `body` (JSON) to the gateway's `path`, as `user` ("" for none).
  void admin(const std::string& path, const std::string& body, const std::string& user = "",
             const std::string& password = "") const;

  support::TempDir dir_{"gantry-etcd-test"};
  std::optional<kube::testing::TestPki> pki_;
  pid_t pid_ = -1;
  std::uint16_t client_port_ = 0;
};

}  // namespace gantry::etcd::testing
