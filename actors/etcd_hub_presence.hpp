// Each hub on an etcd store says it is there: a key <prefix>hubs/<name> on a
// lease of its own, holding the endpoints it advertises (JSON, readable with
// etcdctl). A standby finds the leader's admin endpoint there to answer
// "not leader, try X", and gantryctl get hubs lists them. The key goes when
// the hub stops or its lease lapses.
//
// Unlike the writer claim, losing this lease harms nothing: the renewing
// thread grants a new one and puts the key again once etcd answers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "etcd/client.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// The record's value, and back; nullopt for a value that is not one.
std::string presence_value(const protocol::HubInfo& hub);
std::optional<protocol::HubInfo> presence_of(const std::string& value);

class EtcdHubPresence {
 public:
  // Puts the key now; throws std::runtime_error when etcd cannot be reached.
  EtcdHubPresence(const std::vector<std::string>& endpoints, const etcd::Access& access,
                  std::string key, const protocol::HubInfo& hub, std::int64_t ttl_seconds = 10);
  ~EtcdHubPresence();  // revokes the lease: the key goes at once
  EtcdHubPresence(const EtcdHubPresence&) = delete;
  EtcdHubPresence& operator=(const EtcdHubPresence&) = delete;

 private:
  void put();
  void keep_alive();

  etcd::Client client_;
  const std::string key_;
  const std::string value_;
  const std::int64_t ttl_seconds_;
  std::int64_t lease_ = 0;  // the renewing thread's once it runs
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread renewing_;
};

}  // namespace gantry::actors
