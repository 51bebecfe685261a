// The fixture API server (tests/fixtures/kube_api_fixture.py) as a child
// process of the test: started in the constructor, ready once it printed
// "LISTENING <port>", terminated in the destructor.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gantry::kube::testing {

class FixtureServer {
 public:
  // `arguments` go after the script, e.g. {"--token", "x"}; its stderr goes to
  // `log_file`. Throws std::runtime_error (with the log) when it does not start.
  FixtureServer(std::vector<std::string> arguments, std::filesystem::path log_file);
  ~FixtureServer();
  FixtureServer(const FixtureServer&) = delete;
  FixtureServer& operator=(const FixtureServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& scheme = "http") const;

 private:
  std::string wait_for_listening_line(int out_fd);

  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::filesystem::path log_file_;
};

}  // namespace gantry::kube::testing
