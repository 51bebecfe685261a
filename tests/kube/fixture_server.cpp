#include "tests/kube/fixture_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace gantry::kube::testing {
namespace {

// A failure guard only: the fixture prints its line within a second or two.
constexpr int kStartGuardMillis = 30'000;

std::filesystem::path fixture_script() {
  const char* source_dir = std::getenv("GANTRY_SOURCE_DIR");
  if (source_dir == nullptr) throw std::runtime_error("GANTRY_SOURCE_DIR is not set");
  return std::filesystem::path(source_dir) / "tests/fixtures/kube_api_fixture.py";
}

std::string read_log(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

FixtureServer::FixtureServer(std::vector<std::string> arguments, std::filesystem::path log_file)
    : log_file_(std::move(log_file)) {
  std::vector<std::string> command = {"/usr/bin/python3", fixture_script().string()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int spawned = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(out[0]);
    throw std::runtime_error("cannot start " + command[0]);
  }
  std::string line;
  try {
    line = wait_for_listening_line(out[0]);
  } catch (...) {
    ::close(out[0]);
    throw;
  }
  ::close(out[0]);  // it prints nothing more on stdout
  port_ = static_cast<std::uint16_t>(std::stoi(line.substr(std::string("LISTENING ").size())));
}

FixtureServer::~FixtureServer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

std::string FixtureServer::url(const std::string& scheme) const {
  return scheme + "://127.0.0.1:" + std::to_string(port_);
}

std::string FixtureServer::wait_for_listening_line(int out_fd) {
  std::string text;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartGuardMillis);
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        give_up - std::chrono::steady_clock::now());
    pollfd readable{out_fd, POLLIN, 0};
    char buffer[256];
    ssize_t got = 0;
    if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) <= 0 ||
        (got = ::read(out_fd, buffer, sizeof buffer)) <= 0) {
      throw std::runtime_error("the fixture did not print LISTENING; its log:\n" +
                               read_log(log_file_));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  const std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("LISTENING ", 0) != 0) {
    throw std::runtime_error("the fixture printed \"" + line + "\"; its log:\n" +
                             read_log(log_file_));
  }
  return line;
}

}  // namespace gantry::kube::testing
