// A pod container's log through the Kubernetes API server, as kubectl logs
// reads it: GET /api/v1/namespaces/NS/pods/POD/log?container=C[&tailLines=N]
// [&follow=true]. A thread of its own holds the GET and buffers what arrives
// (at most kMaxBuffered bytes: past that the GET waits for the agent to read);
// the agent loop reads the buffer. With follow the API server ends the body
// when the container ends; a refusal (a container still waiting to start, a
// pod gone) becomes the stream's error, in the API server's words.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "agents/log_source.hpp"
#include "kube/client.hpp"

namespace gantry::agents {

class PodLogSource final : public LogSource {
 public:
  static constexpr std::size_t kMaxBuffered = 1024 * 1024;

  // The log's path with its query: pod_log_path().
  PodLogSource(kube::Client& client, std::string path);
  ~PodLogSource() override;  // stops the GET (within ~200 ms) and joins its thread
  PodLogSource(const PodLogSource&) = delete;
  PodLogSource& operator=(const PodLogSource&) = delete;

  bool read(std::string& out, std::size_t max) override;
  bool more_may_come(bool replica_runs) const override;
  std::string error() const override;

 private:
  void run();
  void append(std::string_view data);

  kube::Client& client_;
  const std::string path_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::condition_variable room_;  // the buffer has room again, or stop_
  std::string buffer_;            // guarded by mutex_
  bool finished_ = false;         // guarded by mutex_: the GET returned
  std::string error_;             // guarded by mutex_
  std::thread thread_;
};

// The API server path of `container`'s log in pod `pod` of `namespace_`.
// `tail_lines` < 0: all of it.
std::string pod_log_path(const std::string& namespace_, const std::string& pod,
                         const std::string& container, std::int32_t tail_lines, bool follow);

}  // namespace gantry::agents
