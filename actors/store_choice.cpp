#include "actors/store_choice.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "actors/etcd_job_store.hpp"
#include "actors/sqlite_job_store.hpp"

namespace gantry::actors {

namespace {

// Ends the process at once: the claim's margin before its lease could lapse
// is two seconds, too short for an orderly stop, and another hub may take the
// store over then. Agents find this hub gone and connect again.
[[noreturn]] void stop_on_lost_claim(const std::string& where, const std::string& why) {
  spdlog::critical(
      "the job store {} is no longer this hub's: {}; this hub stops now so that it "
      "cannot schedule beside the hub that takes the store over",
      where, why);
  spdlog::default_logger()->flush();
  std::_Exit(kLostStoreExitCode);
}

}  // namespace

std::string etcd_store_exposure(const std::string& store, const etcd::Access& access) {
  const bool tls = access.tls.any();
  const bool authenticated = !access.auth.user.empty() || !access.tls.cert_file.empty();
  if (!tls && !authenticated)
    return "the job store " + store +
           " is reached over plaintext http and unauthenticated: anyone who can reach etcd "
           "can read every job and change what this hub schedules. Secure etcd and give "
           "--store-cacert FILE (https), --store-cert FILE --store-key FILE (etcd's "
           "--client-cert-auth) and --store-user NAME --store-password-file FILE (etcd's auth)";
  if (!tls)
    return "the job store " + store +
           " is reached over plaintext http: the etcd password and every job cross the "
           "network readable by anyone on the way. Give --store-cacert FILE (https), with "
           "--store-cert FILE --store-key FILE when etcd asks for client certificates";
  if (!authenticated)
    return "the job store " + store +
           " is reached over https but unauthenticated: anyone who can reach etcd can read "
           "every job and change what this hub schedules. Give --store-user NAME "
           "--store-password-file FILE (etcd's auth) or --store-cert FILE --store-key FILE "
           "(etcd's --client-cert-auth)";
  return "";
}

namespace {

std::shared_ptr<JobStore> open_etcd_store(const HubOptions& options,
                                          EtcdHubPresenceOptions presence) {
  if (const std::string exposure = etcd_store_exposure(options.store, options.store_access);
      !exposure.empty())
    spdlog::warn("INSECURE: {}", exposure);
  EtcdStoreAddress address = parse_etcd_store_address(options.store, options.store_access);
  WriterClaimOptions claim;
  claim.identity = presence.self.name;
  const std::string where = options.store;
  claim.on_lost = [where](const std::string& why) { stop_on_lost_claim(where, why); };
  claim.on_wait = [where, ttl = claim.ttl_seconds](const std::string& holder) {
    spdlog::warn(
        "the job store {} is held by \"{}\": waiting until that hub stops (its claim "
        "lapses {} s after it last renewed it)",
        where, holder, ttl);
  };
  return std::make_shared<EtcdJobStore>(std::move(address), std::move(claim), std::move(presence));
}

}  // namespace

std::shared_ptr<JobStore> open_job_store(
    const HubOptions& options, const protocol::HubInfo& self,
    std::function<void(const protocol::HubInfo& leader)> on_standby) {
  if (options.store.empty()) return std::make_shared<SqliteJobStore>(options.state_dir);
  return open_etcd_store(options, EtcdHubPresenceOptions{self, std::move(on_standby)});
}

}  // namespace gantry::actors
