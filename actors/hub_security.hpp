// The hub's keys, access list and audit log, as its options name them
// (docs/security.md): the hub's keypair is generated on first start, the
// access list is read at start and again on SIGHUP.
#pragma once

#include <filesystem>
#include <memory>

#include "actors/access_list.hpp"
#include "actors/audit_log.hpp"
#include "support/curve_keys.hpp"

namespace gantry::actors {

struct HubOptions;

struct HubSecurityFiles {
  std::filesystem::path key;     // the hub's keypair
  std::filesystem::path access;  // the allow-list
  std::filesystem::path audit;   // the audit log
};

// The files the options name, defaults filled in from the state folder.
HubSecurityFiles security_files(const HubOptions& options);

// Reads the hub's keypair, or generates it (with hub.pub beside it) when the
// file does not exist. Throws std::runtime_error naming the file.
support::CurveKeyPair load_or_generate_hub_keys(const std::filesystem::path& key_file);

// Reads the access list and allows the hub's own key. A missing file is an
// empty list (only the hub itself may connect), logged; a damaged one
// throws std::runtime_error naming the file and the field.
std::shared_ptr<const AccessList> load_access_list(const std::filesystem::path& file,
                                                   const support::CurveKeyPair& hub_keys);

}  // namespace gantry::actors
