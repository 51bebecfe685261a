// The environment variables gantryctl reads, gathered once so that tests hand
// in their own instead of changing the process's.
#pragma once

#include <string>

namespace gantry::console {

// An empty string stands for an unset (or empty) variable.
struct Environment {
  std::string hub;              // GANTRY_HUB
  std::string hub_key;          // GANTRY_HUB_KEY: the hub's public key file
  std::string key;              // GANTRY_KEY: gantryctl's own keypair file
  std::string config_dir;       // GANTRY_CONFIG_DIR
  std::string xdg_config_home;  // XDG_CONFIG_HOME
  std::string home;             // HOME
};

Environment process_environment();

}  // namespace gantry::console
