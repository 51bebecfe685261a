// gantry-hub: schedules gang jobs onto member clusters. Runs until SIGINT or
// SIGTERM, then stops cleanly (exit 0); SIGHUP rereads the access list.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "actors/hub.hpp"
#include "actors/hub_options.hpp"
#include "actors/karmada_mode.hpp"
#include "actors/memory_release.hpp"
#include "actors/state_check.hpp"
#include "config/command_line.hpp"
#include "support/log_format.hpp"

namespace {

// Blocked in every thread (the hub's threads inherit the mask) so that only
// sigwait() below sees them.
sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gantry::actors;
  HubCommandLine command_line;
  if (const auto exit_code = gantry::command_line::parse_or_exit_code(
          "gantry-hub", GANTRY_VERSION, argc, argv, parse_hub_command_line, hub_usage(),
          command_line))
    return *exit_code;
  spdlog::set_level(spdlog::level::from_str(command_line.log_level));
  gantry::support::use_log_format(command_line.log_format);
  if (command_line.check) {
    const HubOptions& options = command_line.options;
    return options.store.empty() ? check_state_directory(options.state_dir, std::cout)
                                 : check_etcd_store(options.store, options.store_access, std::cout);
  }

  gantry::actors::keep_large_buffers_out_of_the_heap();
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  try {
    Hub hub(command_line.options);
    // The in-process Karmada gateway connects with the hub's own keypair,
    // which the hub always allows.
    std::optional<gantry::support::CurveClientKeys> gateway_keys;
    if (!command_line.options.insecure)
      gateway_keys = gantry::support::CurveClientKeys{hub.keys().public_key, hub.keys()};
    KarmadaMode karmada(command_line.karmada, hub, command_line.options.settings.agents.heartbeat_interval,
                        gateway_keys);
    int received = 0;
    while (sigwait(&signals, &received) == 0 && received == SIGHUP) hub.reload_access();
    spdlog::info("received {}, stopping", received == SIGINT ? "SIGINT" : "SIGTERM");
    karmada.stop();  // its sessions and writes end before the hub's sockets do
    hub.stop();
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
  spdlog::info("stopped");
  return 0;
}
