#include "tests/etcd/etcd_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/free_port.hpp"
#include "tests/support/loopback_http.hpp"

extern char** environ;

namespace gantry::etcd::testing {
namespace {

// Failure guards only: a single member is healthy within a second or two.
constexpr auto kStartGuard = std::chrono::seconds(60);
constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr int kStartAttempts = 3;

std::string loopback_url(std::uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

}  // namespace

EtcdServer::EtcdServer() {
  for (int attempt = 1; attempt <= kStartAttempts; ++attempt) {
    if (start()) return;
  }
  throw std::runtime_error("etcd exited before it was healthy " + std::to_string(kStartAttempts) +
                           " times; its last log:\n" + log());
}

EtcdServer::~EtcdServer() {
  kill();
}

std::string EtcdServer::endpoint() const {
  return loopback_url(client_port_);
}

bool EtcdServer::start() {
  client_port_ = support::free_loopback_port();
  spawn(support::free_loopback_port());
  const auto give_up = std::chrono::steady_clock::now() + kStartGuard;
  while (std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (healthy()) return true;
    std::this_thread::sleep_for(kPollInterval);  // a bounded poll: etcd says nothing when ready
  }
  kill();
  throw std::runtime_error("etcd was not healthy within the guard; its log:\n" + log());
}

void EtcdServer::spawn(std::uint16_t peer_port) {
  const std::string client = loopback_url(client_port_), peer = loopback_url(peer_port);
  std::vector<std::string> command = {"/usr/bin/etcd",
                                      "--name=test",
                                      "--data-dir=" + (dir_.path() / "data").string(),
                                      "--listen-client-urls=" + client,
                                      "--advertise-client-urls=" + client,
                                      "--listen-peer-urls=" + peer,
                                      "--initial-advertise-peer-urls=" + peer,
                                      "--initial-cluster=test=" + peer};
  std::filesystem::remove_all(dir_.path() / "data");  // a failed attempt's
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);
  const std::string log_file = (dir_.path() / "etcd.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const int spawned = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw std::runtime_error("cannot start /usr/bin/etcd (apt-get install etcd-server)");
}

// etcd answers {"health":"true"} once the member has a leader and serves.
bool EtcdServer::healthy() const {
  try {
    const auto response = support::loopback_get(client_port_, "/health");
    return response.result_int() == 200 &&
           response.body().find("\"health\":\"true\"") != std::string::npos;
  } catch (const std::exception&) {
    return false;  // not listening yet
  }
}

void EtcdServer::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void EtcdServer::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

void EtcdServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);  // its data is thrown away: no graceful stop needed
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string EtcdServer::log() const {
  std::ifstream in(dir_.path() / "etcd.log");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gantry::etcd::testing
