// The bearer token to send: fixed, or re-read from a file that the kubelet
// rotates (projected service-account tokens expire).
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace gantry::kube {

class TokenSource {
 public:
  TokenSource(std::string token, std::string file);
  // Thread-safe. Re-reads the file at most once a minute; keeps the last
  // token when the file cannot be read.
  std::string token();

 private:
  std::mutex mutex_;
  std::string token_;
  const std::string file_;
  std::chrono::steady_clock::time_point read_at_;
};

}  // namespace gantry::kube
