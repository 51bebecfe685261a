#include "agents/pod_log_source.hpp"

#include <algorithm>
#include <exception>

#include "kube/query.hpp"
#include "kube/status_message.hpp"

namespace gantry::agents {

std::string pod_log_path(const std::string& namespace_, const std::string& pod,
                         const std::string& container, std::int32_t tail_lines, bool follow) {
  std::string path = "/api/v1/namespaces/" + namespace_ + "/pods/" + pod +
                     "/log?container=" + kube::encode_query_value(container);
  if (tail_lines >= 0) path += "&tailLines=" + std::to_string(tail_lines);
  if (follow) path += "&follow=true";
  return path;
}

PodLogSource::PodLogSource(kube::Client& client, std::string path)
    : client_(client), path_(std::move(path)), thread_([this] { run(); }) {}

PodLogSource::~PodLogSource() {
  stop_ = true;
  room_.notify_all();
  thread_.join();
}

void PodLogSource::run() {
  std::string error;
  try {
    kube::Response refusal;
    const auto end = client_.stream(
        path_, [this](std::string_view data) { append(data); }, stop_, &refusal);
    if (end == kube::Client::WatchEnd::kHttpError) {
      error = kube::status_message(refusal.body);
      if (error.empty()) error = "HTTP " + std::to_string(refusal.status);
    } else if (end == kube::Client::WatchEnd::kBroken) {
      error = "the API server's log stream broke off";
    }
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  std::lock_guard lock(mutex_);
  error_ = std::move(error);
  finished_ = true;
}

// On the GET's thread: waits while the agent has not read what came before.
void PodLogSource::append(std::string_view data) {
  std::unique_lock lock(mutex_);
  room_.wait(lock, [&] { return buffer_.size() < kMaxBuffered || stop_; });
  if (!stop_) buffer_.append(data);
}

bool PodLogSource::read(std::string& out, std::size_t max) {
  std::lock_guard lock(mutex_);
  if (buffer_.empty()) return false;
  const std::size_t size = std::min(max, buffer_.size());
  out.append(buffer_, 0, size);
  buffer_.erase(0, size);
  room_.notify_all();
  return true;
}

bool PodLogSource::more_may_come(bool /*replica_runs*/) const {
  std::lock_guard lock(mutex_);
  return !finished_ || !buffer_.empty();
}

std::string PodLogSource::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace gantry::agents
