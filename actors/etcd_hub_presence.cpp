#include "actors/etcd_hub_presence.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "actors/etcd_writer_claim.hpp"

namespace gantry::actors {

std::string presence_value(const protocol::HubInfo& hub) {
  return nlohmann::json{{"name", hub.name},
                        {"admin", hub.admin},
                        {"agents", hub.agents},
                        {"http", hub.http},
                        {"startedMs", hub.started_ms}}
      .dump();
}

std::optional<protocol::HubInfo> presence_of(const std::string& value) {
  const nlohmann::json json = nlohmann::json::parse(value, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  protocol::HubInfo hub;
  try {
    hub.name = json.at("name").get<std::string>();
    hub.admin = json.value("admin", "");
    hub.agents = json.value("agents", "");
    hub.http = json.value("http", "");
    hub.started_ms = json.value("startedMs", std::int64_t{0});
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return hub;
}

EtcdHubPresence::EtcdHubPresence(const std::vector<std::string>& endpoints,
                                 const etcd::Access& access, std::string key,
                                 const protocol::HubInfo& hub, std::int64_t ttl_seconds)
    : client_(endpoints, quick_etcd_calls(access)),
      key_(std::move(key)),
      value_(presence_value(hub)),
      ttl_seconds_(ttl_seconds) {
  put();
  renewing_ = std::thread([this] { keep_alive(); });
}

EtcdHubPresence::~EtcdHubPresence() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (renewing_.joinable()) renewing_.join();
  try {
    client_.revoke(lease_);
  } catch (const std::exception& error) {
    spdlog::debug("the hub's presence lease could not be let go: {}", error.what());
  }
}

void EtcdHubPresence::put() {
  lease_ = client_.grant_lease(ttl_seconds_);
  client_.put(key_, value_, lease_);
}

// Renewed every third of the TTL; once the lease is gone (etcd was out of
// reach longer than the TTL), a new one is granted and the key put again.
void EtcdHubPresence::keep_alive() {
  const auto period = std::chrono::seconds(std::max<std::int64_t>(1, ttl_seconds_ / 3));
  bool lapsed = false;
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, lapsed ? std::chrono::seconds(1) : period,
                         [this] { return stopping_; }))
        return;
    }
    try {
      if (lapsed || client_.keep_alive_once(lease_) == 0) {
        put();
        if (lapsed) spdlog::info("this hub's presence on the etcd store is back ({})", key_);
      }
      lapsed = false;
    } catch (const std::exception& error) {
      if (!lapsed) spdlog::debug("this hub's presence could not be renewed: {}", error.what());
      lapsed = true;  // a new lease once etcd answers: the old one may lapse meanwhile
    }
  }
}

}  // namespace gantry::actors
