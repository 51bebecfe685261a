#include "console/client_keys.hpp"

#include "support/curve_keys.hpp"

namespace gantry::console {

namespace {

// Where one key file comes from, for the message when it is missing.
struct KeySource {
  std::filesystem::path file;
  std::string origin;  // "--key", "$GANTRY_KEY" or "default"
};

KeySource choose(const std::string& flag_value, const char* flag, const std::string& env_value,
                 const char* env_name, const std::filesystem::path& default_dir,
                 const char* default_name) {
  if (!flag_value.empty()) return {flag_value, flag};
  if (!env_value.empty()) return {env_value, std::string("$") + env_name};
  if (default_dir.empty()) return {};
  return {default_dir / default_name, "default"};
}

std::string describe(const KeySource& source, const char* what) {
  if (source.file.empty()) return what + std::string(": no file (HOME is not set)");
  return what + std::string(": ") + source.file.string() + " (" + source.origin + ")";
}

}  // namespace

std::filesystem::path config_directory(const Environment& environment) {
  if (!environment.config_dir.empty()) return environment.config_dir;
  if (!environment.xdg_config_home.empty()) {
    return std::filesystem::path(environment.xdg_config_home) / "gantry";
  }
  if (!environment.home.empty()) return std::filesystem::path(environment.home) / ".config/gantry";
  return {};
}

std::optional<support::CurveClientKeys> client_keys(const Invocation& invocation,
                                                    const Environment& environment) {
  if (invocation.insecure) return std::nullopt;
  const std::filesystem::path dir = config_directory(environment);
  const KeySource hub_key = choose(invocation.hub_key_file, "--hub-key", environment.hub_key,
                                   "GANTRY_HUB_KEY", dir, kHubPublicKeyFile);
  const KeySource own_key =
      choose(invocation.key_file, "--key", environment.key, "GANTRY_KEY", dir, kClientKeyFile);
  const bool hub_key_found = !hub_key.file.empty() && std::filesystem::exists(hub_key.file);
  const bool own_key_found = !own_key.file.empty() && std::filesystem::exists(own_key.file);
  if (!hub_key_found || !own_key_found) {
    const std::string dir_text = dir.empty() ? "~/.config/gantry" : dir.string();
    std::string message = "gantryctl talks to the hub over CurveZMQ and needs two key files:\n";
    message += std::string(hub_key_found ? "  found   " : "  missing ") +
               describe(hub_key, "the hub's public key") + "\n";
    message += std::string(own_key_found ? "  found   " : "  missing ") +
               describe(own_key, "gantryctl's keypair") + "\n";
    message += "To make them:\n  gantryctl keys generate gantryctl --dir " + dir_text +
               "\nthen have the hub's admin allow the printed public key in the hub's "
               "access.yaml,\nand copy the hub's hub.pub (beside its hub.key) to " +
               dir_text +
               "/hub.pub.\n"
               "Or point --hub-key / --key (or GANTRY_HUB_KEY / GANTRY_KEY) at other files.\n"
               "For a hub started with --insecure, pass --insecure.";
    throw KeyError(message);
  }
  try {
    return support::CurveClientKeys{support::read_public_key_file(hub_key.file),
                                    support::read_secret_key_file(own_key.file)};
  } catch (const std::runtime_error& e) {
    throw KeyError(e.what());
  }
}

}  // namespace gantry::console
