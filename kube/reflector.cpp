#include "kube/reflector.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "config/bounded_json.hpp"
#include "kube/query.hpp"
#include "kube/status_message.hpp"

namespace gantry::kube {
using nlohmann::json;

namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(5000);
constexpr int kWatchTimeoutSeconds = 300;
constexpr int kPageSize = 500;
constexpr int kGone = 410;  // "too old resource version": the history we need is compacted away

const json& member(const json& object, const char* key) {
  static const json null;
  if (!object.is_object()) return null;
  const auto found = object.find(key);
  return found == object.end() ? null : *found;
}

std::string string_member(const json& object, const char* key) {
  const json& value = member(object, key);
  return value.is_string() ? value.get<std::string>() : "";
}

// A metav1.Status's code (0 when absent).
int status_code(const json& status) {
  const json& code = member(status, "code");
  return code.is_number_integer() ? code.get<int>() : 0;
}

// Lists of built-in kinds leave kind and apiVersion out of their items.
void fill_kind(json& item, const json& list) {
  if (!item.is_object()) return;
  std::string kind = string_member(list, "kind");
  const std::string suffix = "List";
  if (!item.contains("kind") && kind.size() > suffix.size() && kind.ends_with(suffix)) {
    item["kind"] = kind.substr(0, kind.size() - suffix.size());
  }
  if (!item.contains("apiVersion") && list.contains("apiVersion")) {
    item["apiVersion"] = list["apiVersion"];
  }
}

}  // namespace

struct Reflector::WatchOutcome {
  Client::WatchEnd end = Client::WatchEnd::kBroken;
  bool expired = false;      // 410: list again from scratch
  std::string error;         // an ERROR event or an HTTP error, worth reporting
  std::uint64_t events = 0;  // including bookmarks
};

Reflector::Reflector(Client& client, std::string list_path, Handlers handlers)
    : client_(client), list_path_(std::move(list_path)), handlers_(std::move(handlers)) {}

Reflector::~Reflector() {
  stop();
}

void Reflector::start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void Reflector::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void Reflector::run() {
  auto delay = kFirstBackoff;
  bool must_list = true;
  while (!stop_) {
    try {
      if (must_list) {
        list();
        must_list = false;
        delay = kFirstBackoff;
      }
      const WatchOutcome outcome = watch_once();
      if (outcome.end == Client::WatchEnd::kStopped) break;
      if (outcome.expired) {
        must_list = true;
        continue;
      }
      if (outcome.events > 0) delay = kFirstBackoff;
      if (outcome.end == Client::WatchEnd::kServerClosed && outcome.error.empty()) {
        // The watch's timeout ran out: go on from where it left. A server that
        // closes every watch at once still gets no tight loop.
        if (outcome.events == 0) wait_for(kFirstBackoff);
        continue;
      }
      report("watch " + list_path_ + " from resourceVersion " + resource_version_ + ": " +
             (outcome.error.empty() ? to_string(outcome.end) : outcome.error));
    } catch (const std::exception& error) {
      if (stop_) break;
      report(error.what());
    }
    wait_for(delay);
    delay = std::min(delay * 2, kMaxBackoff);
  }
}

void Reflector::list() {
  std::vector<json> items = list_pages(/*paged=*/true);
  ++relists_;  // before on_list, so that whoever on_list wakes sees the count
  if (handlers_.on_list) handlers_.on_list(items);
}

std::vector<json> Reflector::list_pages(bool paged) {
  std::vector<json> items;
  std::string version;
  std::string continue_token;
  do {
    std::string parameters;
    if (paged) parameters = "limit=" + std::to_string(kPageSize);
    if (!continue_token.empty()) {
      parameters +=
          (parameters.empty() ? "" : "&") + ("continue=" + encode_query_value(continue_token));
    }
    const Response response = client_.get(append_query(list_path_, parameters), stop_);
    if (response.status == kGone && !continue_token.empty()) {
      // The snapshot the pages came from is compacted away: one list in one piece.
      return list_pages(/*paged=*/false);
    }
    if (!response.ok()) {
      throw std::runtime_error("list " + list_path_ + ": " +
                               http_failure(response.status, response.body));
    }
    json page = config::parse_bounded_json_or_discarded(response.body);
    if (!page.is_object())
      throw std::runtime_error("list " + list_path_ +
                               ": the answer is not a JSON object nested at most " +
                               std::to_string(config::kMaxJsonDepth) + " levels");
    if (json& page_items = page["items"]; page_items.is_array()) {
      for (json& item : page_items) {
        fill_kind(item, page);
        items.push_back(std::move(item));
      }
    }
    const json& metadata = member(page, "metadata");
    version = string_member(metadata, "resourceVersion");
    continue_token = string_member(metadata, "continue");
  } while (!continue_token.empty());
  resource_version_ = version;
  return items;
}

Reflector::WatchOutcome Reflector::watch_once() {
  WatchOutcome outcome;
  auto on_event = [&](const json& event) {
    const std::string type = string_member(event, "type");
    const json& object = member(event, "object");
    if (type == "ERROR") {
      if (status_code(object) == kGone) {
        outcome.expired = true;
      } else {
        outcome.error = "ERROR event: " + config::json_excerpt(object);
      }
      return;
    }
    ++outcome.events;
    const std::string version = string_member(member(object, "metadata"), "resourceVersion");
    if (!version.empty()) resource_version_ = version;
    if (type != "BOOKMARK" && handlers_.on_event) handlers_.on_event(type, object);
  };
  Response http_error;
  outcome.end = client_.watch(list_path_, resource_version_, on_event, stop_, kWatchTimeoutSeconds,
                              &http_error);
  if (outcome.end == Client::WatchEnd::kHttpError) {
    if (http_error.status == kGone) {
      outcome.expired = true;
    } else {
      outcome.error = http_failure(http_error.status, http_error.body);
    }
  }
  return outcome;
}

void Reflector::report(const std::string& error) {
  if (handlers_.on_error) {
    handlers_.on_error(error);
  } else {
    spdlog::warn("kube reflector {}: {}", list_path_, error);
  }
}

void Reflector::wait_for(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, delay, [this] { return stop_.load(); });
}

}  // namespace gantry::kube
