#include "actors/etcd_writer_claim.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace gantry::actors {

namespace {

using Clock = std::chrono::steady_clock;

// A renewal that has not got through by then ends the claim: etcd lets the
// lease lapse at the earliest ttl after the last renewal it received, and a
// call ends within a second, so this leaves a margin of two.
constexpr std::chrono::seconds kMargin{3};
constexpr std::chrono::seconds kRetry{1};

}  // namespace

etcd::TransportOptions quick_etcd_calls(const etcd::Access& access) {
  etcd::TransportOptions options;
  options.connect_timeout = std::chrono::milliseconds(500);
  options.request_timeout = std::chrono::milliseconds(1000);
  options.access = access;
  return options;
}

EtcdWriterClaim::EtcdWriterClaim(const std::vector<std::string>& endpoints,
                                 const etcd::Access& access, std::string key,
                                 WriterClaimOptions options)
    : client_(endpoints, quick_etcd_calls(access)),
      key_(std::move(key)),
      options_(std::move(options)) {
  while (!try_claim()) {
  }
  renewing_ = std::thread([this] { keep_alive(); });
}

EtcdWriterClaim::~EtcdWriterClaim() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (renewing_.joinable()) renewing_.join();
  if (lost_) return;
  try {
    client_.revoke(lease_);  // its key goes with it
  } catch (const std::exception& error) {
    spdlog::warn("the etcd store's writer lease could not be let go ({}); it lapses in {} s",
                 error.what(), options_.ttl_seconds);
  }
}

// True once claimed; false when it should be tried again (after waiting for
// another hub's claim to end, or after clearing this hub's own old one).
bool EtcdWriterClaim::try_claim() {
  const etcd::RangeResult current = client_.get(key_);
  if (!current.kvs.empty()) {
    const etcd::KeyValue& holder = current.kvs.front();
    if (holder.value == options_.identity) {
      // This hub's own claim from before a restart: no other process can
      // hold this identity, so it is taken back now rather than after its lease.
      client_.txn(
          {etcd::Compare::mod_revision(key_, etcd::Compare::Result::kEqual, holder.mod_revision)},
          {etcd::Op::remove(key_)});
      return false;
    }
    if (options_.on_wait) options_.on_wait(holder.value);
    wait_for_release(current.revision + 1);
    return false;
  }
  lease_ = client_.grant_lease(options_.ttl_seconds);
  const etcd::TxnResult claimed =
      client_.txn({etcd::Compare::create_revision(key_, etcd::Compare::Result::kEqual, 0)},
                  {etcd::Op::put(key_, options_.identity, lease_)});
  if (claimed.succeeded) {
    revision_ = claimed.revision;
    return true;
  }
  client_.revoke(lease_);  // another hub came first
  return false;
}

// Returns once the key was deleted (its lease lapsed or its hub let go), or
// the watch ended some other way: the caller looks again either way.
void EtcdWriterClaim::wait_for_release(std::int64_t from_revision) {
  std::atomic<bool> released{false};
  client_.watch(
      key_, from_revision,
      [&](const etcd::WatchBatch& batch) {
        for (const etcd::Event& event : batch.events)
          if (event.kv.key == key_ && event.type == etcd::Event::Type::kDelete) released = true;
      },
      released);
}

void EtcdWriterClaim::keep_alive() {
  const auto period = std::chrono::seconds(std::max<std::int64_t>(1, options_.ttl_seconds / 3));
  const auto deadline = std::chrono::seconds(options_.ttl_seconds) - kMargin;
  Clock::time_point renewed = Clock::now();  // when the last renewal that got through was sent
  bool failing = false;
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, failing ? kRetry : period, [this] { return stopping_; })) return;
    }
    const Clock::time_point sent = Clock::now();
    try {
      if (client_.keep_alive_once(lease_) == 0) {
        lose("its lease " + std::to_string(lease_) + " has lapsed");
        return;
      }
      renewed = sent;
      failing = false;
    } catch (const std::exception& error) {
      failing = true;
      if (Clock::now() - renewed >= deadline) {
        lose(std::string("its lease could not be renewed for ") +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(deadline).count()) +
             " s (" + error.what() + ")");
        return;
      }
    }
  }
}

void EtcdWriterClaim::lose(const std::string& why) {
  if (lost_.exchange(true)) return;
  if (options_.on_lost) options_.on_lost(why);
}

}  // namespace gantry::actors
