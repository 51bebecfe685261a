// Which keys gantryctl talks to the hub with. Each file is taken from its flag
// (--hub-key, --key), else its environment variable (GANTRY_HUB_KEY,
// GANTRY_KEY), else the config directory: $GANTRY_CONFIG_DIR, else
// ${XDG_CONFIG_HOME:-$HOME/.config}/gantry, holding hub.pub and gantryctl.key.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "console/arguments.hpp"
#include "console/environment.hpp"
#include "support/curve_socket.hpp"

namespace gantry::console {

// The keys are missing or unreadable; the message says which files were
// looked for and how to make them. gantryctl exits 2.
class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kHubPublicKeyFile = "hub.pub";
inline constexpr const char* kClientKeyFile = "gantryctl.key";

// Empty when neither GANTRY_CONFIG_DIR, XDG_CONFIG_HOME nor HOME is set.
std::filesystem::path config_directory(const Environment& environment);

// nullopt with --insecure (plaintext). Throws KeyError.
std::optional<support::CurveClientKeys> client_keys(const Invocation& invocation,
                                                    const Environment& environment);

}  // namespace gantry::console
