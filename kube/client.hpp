// A thread-safe client of one Kubernetes API server: JSON requests and watch
// streams over HTTP/1.1 (TLS with a CA, client certificates or a bearer token),
// with a small pool of keep-alive connections.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "kube/cluster_access.hpp"

namespace gantry::kube {

struct Response {
  int status = 0;
  std::string body{};  // as received (JSON text; a metav1 Status on errors)
  bool ok() const { return status >= 200 && status < 300; }
};

// The apiserver's patch content types: merge-patch+json (RFC 7386),
// json-patch+json (RFC 6902), strategic-merge-patch+json.
enum class PatchType { kMerge, kJson, kStrategic };

class Client {
 public:
  // Throws std::runtime_error when the server URL or the TLS material is unusable.
  explicit Client(ClusterAccess access);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // `path` includes any query, e.g. "/apis/g/v/namespaces/ns/things?limit=5".
  // Every call throws std::runtime_error naming the server when it cannot
  // connect, the TLS handshake fails, or no answer comes within 30 s; an HTTP
  // error status is returned, not thrown.
  Response get(const std::string& path);
  // As get, but gives up (throwing) within ~200 ms once `stop` becomes true.
  Response get(const std::string& path, const std::atomic<bool>& stop);
  Response post(const std::string& path, const std::string& json);
  Response put(const std::string& path, const std::string& json);
  Response patch(const std::string& path, const std::string& body, PatchType type);
  Response remove(const std::string& path);

  // Streams a watch: GETs path + "?watch=1&resourceVersion=RV&allowWatchBookmarks=true&
  // timeoutSeconds=T" (with & when path has a query; no resourceVersion when
  // RV is empty) and calls on_event with each event line, parsed. Returns when
  // the server ends the stream, the connection breaks (or sends something that
  // is not JSON), or `stop` becomes true (checked every 200 ms). On
  // kHttpError, `http_error` (when given) receives the status and body. Like
  // get, throws std::runtime_error naming the server when it cannot connect or
  // the TLS handshake fails; a connection lost after that is kBroken.
  // Exceptions thrown by on_event end the watch and propagate.
  enum class WatchEnd { kServerClosed, kBroken, kStopped, kHttpError };
  WatchEnd watch(const std::string& path, const std::string& resource_version,
                 const std::function<void(const nlohmann::json& event)>& on_event,
                 const std::atomic<bool>& stop, int timeout_seconds = 300,
                 Response* http_error = nullptr);

  // Streams the body of a GET (a pod's log) to on_data as it arrives, until
  // the server ends it (kServerClosed), the connection breaks (kBroken) or
  // `stop` becomes true (kStopped, checked every 200 ms). The headers must come
  // within 30 s; the body has no deadline (a followed log lasts as long as its
  // container). Not 2xx: kHttpError, with the status and body (read within
  // 30 s) in `http_error` when given. Throws as get does when it cannot
  // connect. Exceptions thrown by on_data end the stream and propagate.
  WatchEnd stream(const std::string& path,
                  const std::function<void(std::string_view data)>& on_data,
                  const std::atomic<bool>& stop, Response* http_error = nullptr);

  const std::string& server() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const char* to_string(Client::WatchEnd end);

}  // namespace gantry::kube
