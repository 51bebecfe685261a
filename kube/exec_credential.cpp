#include "kube/exec_credential.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "support/base64.hpp"
#include "support/rfc3339.hpp"

extern char** environ;

namespace gantry::kube {

namespace {

constexpr auto kExpiryMargin = std::chrono::seconds(10);

[[noreturn]] void fail(const std::string& problem) {
  throw std::runtime_error("kubeconfig exec credential: " + problem);
}

// KUBERNETES_EXEC_INFO: what client-go tells a plugin about the request.
std::string exec_info(const ExecPlugin& plugin) {
  nlohmann::json spec = {{"interactive", false}};
  if (plugin.provide_cluster_info) {
    nlohmann::json cluster = {{"server", plugin.server}};
    if (!plugin.ca_pem.empty())
      cluster["certificate-authority-data"] = support::encode_base64(plugin.ca_pem);
    if (plugin.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    spec["cluster"] = cluster;
  }
  return nlohmann::json{
      {"apiVersion", plugin.api_version}, {"kind", "ExecCredential"}, {"spec", spec}}
      .dump();
}

// Gantry's environment, each of the plugin's variables replacing one of the
// same name, and KUBERNETES_EXEC_INFO.
std::vector<std::string> plugin_environment(const ExecPlugin& plugin) {
  std::vector<std::pair<std::string, std::string>> added = plugin.env;
  added.emplace_back("KUBERNETES_EXEC_INFO", exec_info(plugin));
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [key, value] : added) replaced = replaced || key == name;
    if (!replaced) entries.push_back(text);
  }
  for (const auto& [key, value] : added) entries.push_back(key + "=" + value);
  return entries;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

class SpawnedPlugin {
 public:
  explicit SpawnedPlugin(const ExecPlugin& plugin) {
    int pipe_ends[2];
    if (::pipe2(pipe_ends, O_CLOEXEC) != 0) fail(std::string("pipe: ") + std::strerror(errno));
    read_end_ = pipe_ends[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
    std::vector<std::string> argv_strings{plugin.command};
    argv_strings.insert(argv_strings.end(), plugin.args.begin(), plugin.args.end());
    std::vector<std::string> env_strings = plugin_environment(plugin);
    const std::vector<char*> argv = c_strings(argv_strings);
    const std::vector<char*> envp = c_strings(env_strings);
    const int error =
        ::posix_spawnp(&pid_, plugin.command.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_ends[1]);
    if (error != 0) {
      pid_ = -1;
      fail("cannot run \"" + plugin.command + "\": " + std::strerror(error) +
           (plugin.install_hint.empty() ? "" : "\n" + plugin.install_hint));
    }
  }

  ~SpawnedPlugin() {
    if (read_end_ >= 0) ::close(read_end_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  SpawnedPlugin(const SpawnedPlugin&) = delete;
  SpawnedPlugin& operator=(const SpawnedPlugin&) = delete;

  // Its whole stdout, bounded in size and time.
  std::string output(const std::string& command) {
    const auto deadline = std::chrono::steady_clock::now() + kExecTimeout;
    std::string printed;
    char buffer[16384];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd readable{read_end_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) == 0)
        fail("\"" + command + "\" printed no credential within " +
             std::to_string(kExecTimeout.count()) + " s");
      const ssize_t got = ::read(read_end_, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(std::string("reading its output: ") + std::strerror(errno));
      if (got == 0) return printed;
      printed.append(buffer, static_cast<std::size_t>(got));
      if (printed.size() > kExecMaxOutputBytes)
        fail("\"" + command + "\" printed more than " + std::to_string(kExecMaxOutputBytes) +
             " bytes");
    }
  }

  // Its exit status (-1: killed by a signal).
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int read_end_ = -1;
};

std::string string_field(const nlohmann::json& object, const char* key, const std::string& field) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return "";
  if (!found->is_string()) fail(field + ": not a string");
  return found->get<std::string>();
}

}  // namespace

ExecCredential read_exec_credential(const std::string& printed, const std::string& api_version) {
  nlohmann::json credential;
  try {
    credential = nlohmann::json::parse(printed);
  } catch (const nlohmann::json::exception& error) {
    fail(std::string("the plugin printed no JSON (") + error.what() + ")");
  }
  if (!credential.is_object()) fail("the plugin printed no JSON object");
  const std::string kind = string_field(credential, "kind", "kind");
  if (kind != "ExecCredential") fail("kind: expected ExecCredential (got \"" + kind + "\")");
  const std::string version = string_field(credential, "apiVersion", "apiVersion");
  if (version != api_version)
    fail("apiVersion: the kubeconfig asks for " + api_version + " (got \"" + version + "\")");
  const auto status = credential.find("status");
  if (status == credential.end() || !status->is_object()) fail("status: missing");
  ExecCredential read;
  read.token = string_field(*status, "token", "status.token");
  if (read.token.empty()) {
    if (!string_field(*status, "clientCertificateData", "status.clientCertificateData").empty())
      fail(
          "status: a client certificate, which Gantry does not take from a plugin (only a "
          "token)");
    fail("status.token: missing");
  }
  const std::string expiry =
      string_field(*status, "expirationTimestamp", "status.expirationTimestamp");
  if (!expiry.empty()) {
    read.expires = support::parse_rfc3339(expiry);
    if (!read.expires)
      fail("status.expirationTimestamp: not an RFC 3339 time (got \"" + expiry + "\")");
  }
  return read;
}

ExecCredential run_exec_plugin(const ExecPlugin& plugin) {
  SpawnedPlugin spawned(plugin);
  const std::string printed = spawned.output(plugin.command);
  const int status = spawned.wait();
  if (status != 0)
    fail("\"" + plugin.command + "\" " +
         (status < 0 ? std::string("was killed by a signal")
                     : "exited with status " + std::to_string(status)));
  return read_exec_credential(printed, plugin.api_version);
}

ExecTokenSource::ExecTokenSource(ExecPlugin plugin) : plugin_(std::move(plugin)) {}

std::string ExecTokenSource::token() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::system_clock::now();
  if (!credential_ || (credential_->expires && *credential_->expires - kExpiryMargin <= now))
    credential_ = run_exec_plugin(plugin_);
  return credential_->token;
}

void ExecTokenSource::refused(const std::string& token) {
  std::lock_guard lock(mutex_);
  // Only the token that was refused: another thread may have a new one already.
  if (credential_ && credential_->token == token) credential_.reset();
}

}  // namespace gantry::kube
