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

#include "etcd/transport.hpp"
#include "kube/connection.hpp"
#include "kube/tls_context.hpp"
#include "support/free_port.hpp"
#include "tests/support/loopback_http.hpp"

extern char** environ;

namespace gantry::etcd::testing {
namespace {

// Failure guards only: a single member is healthy within a second or two.
constexpr auto kStartGuard = std::chrono::seconds(60);
constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr int kStartAttempts = 3;

std::string loopback_url(std::uint16_t port, bool tls = false) {
  return (tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port);
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

EtcdServer::EtcdServer(EtcdServerOptions options) {
  if (options.tls) {
    const auto pki_dir = dir_.path() / "pki";
    std::filesystem::create_directories(pki_dir);
    pki_ = kube::testing::make_test_pki(pki_dir);
    // The gateway dials etcd's own gRPC server with the serving certificate
    // as its client certificate: it needs clientAuth as well as serverAuth.
    kube::testing::make_test_leaf(
        pki_dir, "etcd-server", "/CN=etcd-server",
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
    // No CommonName: etcd refuses gateway requests from a certificate with
    // one once its authentication is on.
    kube::testing::make_test_leaf(pki_dir, "etcd-client", "/O=gantry-test",
                                  "extendedKeyUsage=clientAuth\n");
  }
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
  return loopback_url(client_port_, pki_.has_value());
}

Access EtcdServer::client_access() const {
  Access access;
  if (pki_) {
    access.tls.ca_file = pki_->ca_file.string();
    access.tls.cert_file = (pki_->dir / "etcd-client.crt").string();
    access.tls.key_file = (pki_->dir / "etcd-client.key").string();
  }
  return access;
}

const kube::testing::TestPki& EtcdServer::pki() const {
  if (!pki_) throw std::logic_error("this etcd was started without TLS");
  return *pki_;
}

void EtcdServer::admin(const std::string& path, const std::string& body, const std::string& user,
                       const std::string& password) const {
  TransportOptions options;
  options.access = client_access();
  options.access.auth = Credentials{user, password};
  Transport transport({endpoint()}, options);
  transport.call(path, nlohmann::json::parse(body), [](const nlohmann::json&) { return 0; });
}

// As etcdctl user add / role add / role grant-permission / user grant-role /
// auth enable would; "AA==" is the key "\0": with range_end "\0", every key.
void EtcdServer::enable_auth(const std::string& user, const std::string& password) {
  admin("/v3/auth/user/add", R"({"name":"root","password":")" + std::string(kRootPassword) + "\"}");
  admin("/v3/auth/user/grant", R"({"user":"root","role":"root"})");
  admin("/v3/auth/user/add", R"({"name":")" + user + R"(","password":")" + password + "\"}");
  admin("/v3/auth/role/add", R"({"name":"gantry-test"})");
  admin(
      "/v3/auth/role/grant",
      R"({"name":"gantry-test","perm":{"permType":"READWRITE","key":"AA==","range_end":"AA=="}})");
  admin("/v3/auth/user/grant", R"({"user":")" + user + R"(","role":"gantry-test"})");
  admin("/v3/auth/enable", "{}");
}

// Disabling auth empties etcd's table of simple tokens; restarting etcd
// would not: it replays the authentications from its log.
void EtcdServer::drop_tokens() {
  admin("/v3/auth/disable", "{}", "root", kRootPassword);
  admin("/v3/auth/enable", "{}");
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
  const std::string client = endpoint(), peer = loopback_url(peer_port);
  std::vector<std::string> command = {"/usr/bin/etcd",
                                      "--name=test",
                                      "--data-dir=" + (dir_.path() / "data").string(),
                                      "--listen-client-urls=" + client,
                                      "--advertise-client-urls=" + client,
                                      "--listen-peer-urls=" + peer,
                                      "--initial-advertise-peer-urls=" + peer,
                                      "--initial-cluster=test=" + peer};
  if (pki_) {
    command.push_back("--cert-file=" + (pki_->dir / "etcd-server.crt").string());
    command.push_back("--key-file=" + (pki_->dir / "etcd-server.key").string());
    command.push_back("--trusted-ca-file=" + pki_->ca_file.string());
    command.push_back("--client-cert-auth");
  }
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
    boost::beast::http::response<boost::beast::http::string_body> response;
    if (!pki_) {
      response = support::loopback_get(client_port_, "/health");
    } else {
      kube::ClusterAccess access;
      access.ca_pem = pki_->ca_pem;
      access.client_cert_pem = read_text(pki_->dir / "etcd-client.crt");
      access.client_key_pem = read_text(pki_->dir / "etcd-client.key");
      const auto tls = kube::make_tls_context(access);
      const auto deadline = kube::Clock::now() + std::chrono::seconds(5);
      const auto url = kube::parse_server_url(endpoint());
      auto connection = kube::Connection::open(url, "etcd", tls.get(), deadline, nullptr);
      kube::HttpRequest request(boost::beast::http::verb::get, "/health", 11);
      request.set(boost::beast::http::field::host, url.host_header);
      kube::HttpParser parser;
      auto error = connection->write(request, deadline, nullptr);
      if (!error) error = connection->read_rest(parser, deadline, nullptr);
      if (error) return false;
      response = parser.release();
    }
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
  return read_text(dir_.path() / "etcd.log");
}

}  // namespace gantry::etcd::testing
