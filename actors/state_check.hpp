// gantry-hub --state DIR --check: whether a hub could start on DIR, and
// what it would find there, without starting one or changing anything.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "etcd/access.hpp"

namespace gantry::actors {

// Writes what it finds to `out`; returns 0 when the state is sound (or new),
// 1 when a hub would refuse it.
int check_state_directory(const std::filesystem::path& state_dir, std::ostream& out);
// The same for --store etcd://..., reached with `access` (the hub's
// --store-cacert, --store-user, ...): its holder, counts, and whether every
// record reads; neither claims the store nor writes to it.
int check_etcd_store(const std::string& url, const etcd::Access& access, std::ostream& out);

}  // namespace gantry::actors
