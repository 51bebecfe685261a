// A real etcd (Debian's etcd-server, /usr/bin/etcd) as a child process of the
// test: one member on free loopback ports with its data in a temporary
// directory, ready once its /health says so, killed in the destructor.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "support/temp_dir.hpp"

namespace gantry::etcd::testing {

class EtcdServer {
 public:
  // Throws std::runtime_error with etcd's log when it does not become healthy.
  EtcdServer();
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // "http://127.0.0.1:<client port>"
  std::string endpoint() const;
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

  support::TempDir dir_{"gantry-etcd-test"};
  pid_t pid_ = -1;
  std::uint16_t client_port_ = 0;
};

}  // namespace gantry::etcd::testing
