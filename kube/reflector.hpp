// List-then-watch of one resource in its own thread, as client-go's reflector:
// list (remembering metadata.resourceVersion), then watch from it; every
// event's object resourceVersion and every BOOKMARK advance it; a watch that
// ends is re-opened from the last one; an ERROR event with code 410 (or an
// HTTP 410) lists again from scratch. Failures back off from 100 ms, doubling
// up to 5 s.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.hpp"

namespace gantry::kube {

class Reflector {
 public:
  // All called on the reflector's thread.
  struct Handlers {
    // The full state, on the first list and on every re-list. Items carry
    // kind and apiVersion even where the server leaves them out of lists.
    std::function<void(const std::vector<nlohmann::json>& items)> on_list{};
    // "ADDED", "MODIFIED" or "DELETED" and the object.
    std::function<void(const std::string& type, const nlohmann::json& object)> on_event{};
    // Optional: a failed list or watch (it is retried); logged when unset.
    std::function<void(const std::string& error)> on_error{};
  };

  // `list_path` may carry a query (e.g. a labelSelector); `client` must outlive
  // the reflector.
  Reflector(Client& client, std::string list_path, Handlers handlers);
  ~Reflector();  // stop()
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void start();
  void stop();  // returns within ~1 s (unless a handler is busy)
  std::uint64_t relists() const { return relists_.load(); }

 private:
  struct WatchOutcome;
  void run();
  void list();
  std::vector<nlohmann::json> list_pages(bool paged);
  WatchOutcome watch_once();
  void report(const std::string& error);
  void wait_for(std::chrono::milliseconds delay);

  Client& client_;
  const std::string list_path_;
  const Handlers handlers_;
  std::string resource_version_;  // the reflector thread's only
  std::atomic<std::uint64_t> relists_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace gantry::kube
