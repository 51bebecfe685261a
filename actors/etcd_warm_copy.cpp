#include "actors/etcd_warm_copy.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace gantry::actors {

namespace {

constexpr std::int64_t kScanPage = 500;
constexpr auto kRetry = std::chrono::seconds(1);

}  // namespace

EtcdWarmCopy::EtcdWarmCopy(std::shared_ptr<etcd::Client> client, std::string prefix)
    : client_(std::move(client)), prefix_(std::move(prefix)) {
  revision_ =
      client_->scan(prefix_, kScanPage, [this](const etcd::KeyValue& kv) { keys_[kv.key] = kv; });
  watching_ = std::thread([this] { follow(); });
}

EtcdWarmCopy::~EtcdWarmCopy() {
  stop_ = true;
  if (watching_.joinable()) watching_.join();
}

// Resumes after a broken connection from the revision the copy has; a
// compacted or canceled watch ends the copy (a scan at take-over replaces it).
void EtcdWarmCopy::follow() {
  while (!stop_) {
    std::int64_t from = 0;
    {
      const std::lock_guard lock(mutex_);
      from = revision_ + 1;
    }
    etcd::WatchResult result;
    try {
      result = client_->watch(
          prefix_, from, [this](const etcd::WatchBatch& batch) { apply(batch); }, stop_);
    } catch (const std::exception& error) {
      spdlog::debug("the standby's copy of the store: watch not set up ({}); again in 1 s",
                    error.what());
      result.end = etcd::WatchEnd::kBroken;
    }
    if (result.end == etcd::WatchEnd::kCompacted || result.end == etcd::WatchEnd::kCanceled) {
      spdlog::info("the standby's copy of the store ends ({}): a take-over reads the store",
                   etcd::to_string(result.end));
      const std::lock_guard lock(mutex_);
      ended_ = true;
      changed_.notify_all();
      return;
    }
    if (result.end == etcd::WatchEnd::kStopped) return;
    for (auto waited = std::chrono::milliseconds(0); waited < kRetry && !stop_;
         waited += std::chrono::milliseconds(100))
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void EtcdWarmCopy::apply(const etcd::WatchBatch& batch) {
  const std::lock_guard lock(mutex_);
  for (const etcd::Event& event : batch.events) {
    if (event.type == etcd::Event::Type::kDelete)
      keys_.erase(event.kv.key);
    else
      keys_[event.kv.key] = event.kv;
  }
  if (!batch.events.empty()) revision_ = std::max(revision_, batch.events.back().kv.mod_revision);
  changed_.notify_all();
}

std::optional<EtcdWarmCopy::Keys> EtcdWarmCopy::take(std::int64_t revision,
                                                     std::chrono::milliseconds wait) {
  std::optional<Keys> taken;
  {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, wait, [&] { return ended_ || revision_ >= revision; });
    if (!ended_ && revision_ >= revision) taken = std::move(keys_);
  }
  stop_ = true;
  if (watching_.joinable()) watching_.join();
  return taken;
}

}  // namespace gantry::actors
