// The real gantry-hub binary as a child process on loopback ports, so the
// benchmark measures what operators run (its own CAF threads, its SQLite
// store, its ZeroMQ I/O thread) and not an in-process stand-in.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace gantry::bench::e2e {

struct HubLaunch {
  std::string binary;
  std::string agents_endpoint;
  std::string admin_endpoint;
  std::filesystem::path state_dir;
  std::filesystem::path log_file;  // the hub's stdout and stderr
  std::string log_level = "warn";
  int heartbeat_ms = 1000;
  std::string http_listen;  // "": no --http-listen
  std::string store;        // "": no --store (gantry.db in state_dir)
};

class HubProcess {
 public:
  // Starts the hub; throws std::runtime_error when it cannot be spawned.
  explicit HubProcess(const HubLaunch& launch);
  ~HubProcess();  // stop()
  HubProcess(const HubProcess&) = delete;
  HubProcess& operator=(const HubProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False once the hub has exited (it failed to bind, crashed, ...).
  bool running();
  // SIGTERM, then SIGKILL if it has not exited within a few seconds. Returns
  // the exit status as waitpid() reported it, or -1 if it was already reaped.
  int stop();

 private:
  pid_t pid_ = -1;
};

}  // namespace gantry::bench::e2e
