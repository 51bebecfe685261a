// gantry-hub: schedules gang jobs onto member clusters. Runs until SIGINT or
// SIGTERM, then stops cleanly (exit 0).
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "actors/hub.hpp"
#include "actors/hub_options.hpp"

namespace {

// Blocked in every thread (the hub's threads inherit the mask) so that only
// sigwait() below sees them.
sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gantry::actors;
  HubCommandLine command_line;
  try {
    command_line = parse_hub_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-hub: %s\n%s", e.what(), hub_usage().c_str());
    return 2;
  }
  if (command_line.help) {
    std::fputs(hub_usage().c_str(), stdout);
    return 0;
  }
  spdlog::set_level(spdlog::level::from_str(command_line.log_level));

  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  try {
    Hub hub(command_line.options);
    int received = 0;
    sigwait(&signals, &received);
    spdlog::info("received {}, stopping", received == SIGINT ? "SIGINT" : "SIGTERM");
    hub.stop();
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
  spdlog::info("stopped");
  return 0;
}
