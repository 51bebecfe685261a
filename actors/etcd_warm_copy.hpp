// A standby's copy of every key under the store's prefix, kept current by a
// watch while another hub holds the store (issue 31: "standbys watch the
// keys to keep a warm copy"), so that a hub taking over reads the store
// from memory instead of from etcd: the read it saves grows with the store
// (about 200 µs a job, bench/README.md "Recovery after a hub dies").
//
// The copy is whole at a revision: one scan, then every change after it in
// revision order. Once this hub has claimed the store at revision C, take(C)
// waits until the copy has seen C (the claim's own key is under the prefix,
// so its put arrives on the watch) and hands it over: no other hub can
// write after C, so it is the store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "etcd/client.hpp"

namespace gantry::actors {

class EtcdWarmCopy {
 public:
  using Keys = std::map<std::string, etcd::KeyValue>;

  // Reads the prefix now (throws std::runtime_error when etcd cannot be
  // reached) and keeps watching it on a thread of its own.
  EtcdWarmCopy(std::shared_ptr<etcd::Client> client, std::string prefix);
  ~EtcdWarmCopy();
  EtcdWarmCopy(const EtcdWarmCopy&) = delete;
  EtcdWarmCopy& operator=(const EtcdWarmCopy&) = delete;

  // The copy once it has seen `revision`, and the watch stopped; nullopt
  // when the watch ended for good (compacted past it, canceled) or has not
  // got there within `wait`: the caller reads the store instead.
  std::optional<Keys> take(std::int64_t revision, std::chrono::milliseconds wait);

 private:
  void follow();
  void apply(const etcd::WatchBatch& batch);

  std::shared_ptr<etcd::Client> client_;
  const std::string prefix_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Keys keys_;
  std::int64_t revision_ = 0;  // the copy is the store as of this revision
  bool ended_ = false;         // the watch ended and will not resume
  std::atomic<bool> stop_{false};
  std::thread watching_;
};

}  // namespace gantry::actors
