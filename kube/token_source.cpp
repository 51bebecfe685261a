#include "kube/token_source.hpp"

#include "kube/read_file.hpp"

namespace gantry::kube {

namespace {
constexpr auto kRereadInterval = std::chrono::minutes(1);
}

TokenSource::TokenSource(std::string token, std::string file)
    : token_(std::move(token)),
      file_(std::move(file)),
      read_at_(std::chrono::steady_clock::now()) {}

std::string TokenSource::token() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!file_.empty() && now - read_at_ >= kRereadInterval) {
    read_at_ = now;
    if (auto text = read_whole_file(file_)) {
      std::string fresh = trim_token(std::move(*text));
      if (!fresh.empty()) token_ = std::move(fresh);
    }
  }
  return token_;
}

}  // namespace gantry::kube
