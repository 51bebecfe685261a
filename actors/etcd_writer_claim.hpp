// Which hub may write the etcd store: the one whose key <prefix>writer, put on
// its own lease, exists. Every write of the store is a transaction that holds
// only while that key is still the one this claim created (its
// create_revision), so a hub that lost its claim can never write again
// (fencing), even while it does not know it yet.
//
// The lease is renewed every third of its TTL. A hub that could not renew it
// for longer than the TTL less a margin is told (on_lost) before etcd could
// have let the lease lapse: it stops writing and scheduling then, as
// Kubernetes' components do when they lose their leader lease.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "etcd/client.hpp"

namespace gantry::actors {

// Calls that end within a second: a renewal must not hang past the margin.
etcd::TransportOptions quick_etcd_calls(const etcd::Access& access);

struct WriterClaimOptions {
  std::int64_t ttl_seconds = 10;
  // Who claims: "<host> <state directory>". A claim left by the same
  // identity is this hub's own, from before a crash (its state directory's
  // lock says no other process runs it), and is taken over at once.
  std::string identity;
  // Told once, from the renewing thread, when the claim is lost or may be.
  std::function<void(const std::string& why)> on_lost;
  // Told when the claim is held by another hub and this one waits for it.
  std::function<void(const std::string& holder)> on_wait;
};

class EtcdWriterClaim {
 public:
  // Waits until the key is free (another hub's claim ends when its lease
  // lapses or it lets go), then claims it. Throws std::runtime_error when
  // etcd cannot be reached.
  // Renews through a client of its own (on the same endpoints, with the
  // same TLS files and credentials as the store's) whose calls end within a
  // second, so that a hung call cannot outlast the margin before the lease
  // lapses.
  EtcdWriterClaim(const std::vector<std::string>& endpoints, const etcd::Access& access,
                  std::string key, WriterClaimOptions options);
  // Lets go: the lease is revoked, so a standing-by hub takes over at once.
  ~EtcdWriterClaim();
  EtcdWriterClaim(const EtcdWriterClaim&) = delete;
  EtcdWriterClaim& operator=(const EtcdWriterClaim&) = delete;

  const std::string& key() const { return key_; }
  // The revision that created the key: the compare of every write.
  std::int64_t revision() const { return revision_; }
  std::int64_t lease() const { return lease_; }
  bool lost() const { return lost_; }

 private:
  bool try_claim();
  void wait_for_release(std::int64_t from_revision);
  void keep_alive();
  void lose(const std::string& why);

  etcd::Client client_;
  const std::string key_;
  const WriterClaimOptions options_;
  std::int64_t lease_ = 0;
  std::int64_t revision_ = 0;
  std::atomic<bool> lost_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread renewing_;
};

}  // namespace gantry::actors
