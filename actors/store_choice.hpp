// Opens the job store --store names: SQLite in the state directory, or etcd.
#pragma once

#include <functional>
#include <memory>

#include "actors/hub.hpp"
#include "actors/job_store.hpp"

namespace gantry::actors {

// The exit status of a hub that lost its claim on the etcd store.
inline constexpr int kLostStoreExitCode = 3;

// Throws std::runtime_error saying what is wrong. On etcd, shows `self` to
// the other hubs, waits while another holds the store (telling on_standby
// who, each time it finds one), and ends this process (kLostStoreExitCode)
// as soon as its claim is lost or may be: another hub may be scheduling then.
std::shared_ptr<JobStore> open_job_store(
    const HubOptions& options, const protocol::HubInfo& self,
    std::function<void(const protocol::HubInfo& leader)> on_standby);

// Why the etcd store at `store` is exposed when reached with `access` (plain
// http, no credentials), naming the flags that fix it; "" when it is not.
// The hub logs it as a warning when it opens the store.
std::string etcd_store_exposure(const std::string& store, const etcd::Access& access);

}  // namespace gantry::actors
