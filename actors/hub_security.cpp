#include "actors/hub_security.hpp"

#include <spdlog/spdlog.h>

#include <stdexcept>
#include <system_error>

#include "actors/hub.hpp"

namespace gantry::actors {

HubSecurityFiles security_files(const HubOptions& options) {
  const auto or_default = [&](const std::filesystem::path& given, const char* name) {
    return given.empty() ? options.state_dir / name : given;
  };
  return {or_default(options.key_file, "hub.key"), or_default(options.access_file, "access.yaml"),
          or_default(options.audit_log, "audit.log")};
}

support::CurveKeyPair load_or_generate_hub_keys(const std::filesystem::path& key_file) {
  std::error_code error;
  if (std::filesystem::exists(key_file, error)) return support::read_secret_key_file(key_file);
  if (key_file.extension() != ".key") {
    throw std::runtime_error("--key " + key_file.string() +
                             " does not exist; a generated key file must end in .key");
  }
  std::string name = key_file.stem().string();
  support::CurveKeyPair keys = support::generate_curve_keypair(name);
  const std::filesystem::path dir =
      key_file.has_parent_path() ? key_file.parent_path() : std::filesystem::path(".");
  support::write_key_files(keys, dir);
  spdlog::info("generated the hub's keypair in {} (public key {}, also in {}.pub): agents and "
               "gantryctl need the public key",
               key_file.string(), keys.public_key, (dir / name).string());
  return keys;
}

std::shared_ptr<const AccessList> load_access_list(const std::filesystem::path& file,
                                                   const support::CurveKeyPair& hub_keys) {
  auto list = std::make_shared<AccessList>();
  std::error_code error;
  if (std::filesystem::exists(file, error)) {
    *list = AccessList::load(file);
  } else {
    spdlog::warn("no access list at {}: no agent and no gantryctl can connect (docs/security.md)",
                 file.string());
  }
  list->allow_hub(hub_keys.public_key);
  return list;
}

}  // namespace gantry::actors
