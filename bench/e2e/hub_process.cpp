#include "bench/e2e/hub_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace gantry::bench::e2e {

namespace {

// --insecure: the simulated clusters and the load generator speak plaintext, so
// the benchmark measures the scheduler as before issue 27 (on loopback only).
std::vector<std::string> hub_arguments(const HubLaunch& launch) {
  std::vector<std::string> args{launch.binary,    "--insecure",
                                "--agents",       launch.agents_endpoint,
                                "--admin",        launch.admin_endpoint,
                                "--state",        launch.state_dir.string(),
                                "--heartbeat-ms", std::to_string(launch.heartbeat_ms),
                                "--log-level",    launch.log_level};
  if (!launch.store.empty()) {
    args.push_back("--store");
    args.push_back(launch.store);
  }
  if (!launch.http_listen.empty()) {
    args.push_back("--http-listen");
    args.push_back(launch.http_listen);
  }
  return args;
}

// Polls for the exit, so a hub that ignores SIGTERM cannot hang the benchmark.
bool wait_exit(pid_t pid, std::chrono::milliseconds limit, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

HubProcess::HubProcess(const HubLaunch& launch) {
  std::vector<std::string> args = hub_arguments(launch);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, launch.log_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  const int rc = ::posix_spawn(&pid_, argv[0], &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start " + launch.binary + ": " + std::strerror(rc));
  }
}

HubProcess::~HubProcess() {
  stop();
}

bool HubProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int HubProcess::stop() {
  if (pid_ <= 0) return -1;
  int status = 0;
  ::kill(pid_, SIGTERM);
  if (!wait_exit(pid_, std::chrono::seconds(10), status)) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  return status;
}

}  // namespace gantry::bench::e2e
