// Client::watch: one watch stream (POST /v3/watch with a create_request; the
// gateway answers each WatchResponse as one line {"result": ...}).
#include <exception>
#include <optional>
#include <vector>

#include "etcd/client.hpp"
#include "etcd/request_json.hpp"
#include "etcd/stream_lines.hpp"

namespace gantry::etcd {
namespace {

// Applies one WatchResponse; the watch's end when it is the last.
std::optional<WatchResult> handle(const WatchMessage& message,
                                  const std::function<void(const WatchBatch&)>& on_events) {
  // A start revision compacted away arrives as created, then canceled with
  // compact_revision (or both at once); no events come then.
  if (message.canceled) {
    if (message.compact_revision > 0) {
      return WatchResult{WatchEnd::kCompacted, message.compact_revision, {}};
    }
    return WatchResult{WatchEnd::kCanceled, 0, message.cancel_reason};
  }
  if (!message.batch.events.empty()) on_events(message.batch);
  return std::nullopt;
}

}  // namespace

const char* to_string(WatchEnd end) {
  switch (end) {
    case WatchEnd::kStopped:
      return "stopped";
    case WatchEnd::kServerClosed:
      return "server closed";
    case WatchEnd::kBroken:
      return "broken";
    case WatchEnd::kCompacted:
      return "compacted";
    case WatchEnd::kCanceled:
      return "canceled";
  }
  return "unknown";
}

// etcd checks a watch's token when it creates the watch: a token it no
// longer knows cancels it at once (or, before the stream, fails the call),
// with no event delivered, so setting it up again with a fresh one is safe.
WatchResult Client::watch(const std::string& prefix, std::int64_t from_revision,
                          const std::function<void(const WatchBatch&)>& on_events,
                          const std::atomic<bool>& stop) {
  const std::string token = transport_.token();
  if (token.empty()) return watch_once(prefix, from_revision, on_events, stop, token);
  bool delivered = false;
  const auto count = [&](const WatchBatch& batch) {
    delivered = true;
    on_events(batch);
  };
  try {
    WatchResult result = watch_once(prefix, from_revision, count, stop, token);
    if (result.end != WatchEnd::kCanceled || delivered || !Transport::refuses_token(result.reason))
      return result;
  } catch (const GrpcError& error) {
    if (delivered || !Transport::refuses_token(error.what())) throw;
  }
  transport_.token_refused(token);
  return watch_once(prefix, from_revision, on_events, stop, transport_.token());
}

WatchResult Client::watch_once(const std::string& prefix, std::int64_t from_revision,
                               const std::function<void(const WatchBatch&)>& on_events,
                               const std::atomic<bool>& stop, const std::string& token) {
  static const std::string kPath = "/v3/watch";
  std::string endpoint;
  std::vector<WatchMessage> parsed;  // lines of the last piece, not yet handled
  StreamLines lines([&](std::string_view line) {
    parsed.push_back(decode_watch(stream_result(parse_answer(line))));
  });
  std::optional<WatchResult> ended;
  std::exception_ptr failure;  // thrown while reading: rethrown once the read is over
  // Reading errors name the endpoint; what on_events throws passes unchanged.
  const auto deliver = [&](const std::function<void()>& read) {
    try {
      Transport::with_context(endpoint, kPath, read);
      for (const auto& message : parsed) {
        if (!ended) ended = handle(message, on_events);
      }
      parsed.clear();
    } catch (...) {
      failure = std::current_exception();
    }
  };
  // Exceptions must not cross the connection's I/O loop: each ends the read.
  const auto on_data = [&](std::string_view data) {
    deliver([&] { lines.feed(data); });
    return !failure && !ended;
  };
  bool clean = false;
  try {
    clean = transport_.stream(kPath, watch_create_request(prefix, from_revision), token, on_data,
                              stop, endpoint);
  } catch (const kube::StoppedError&) {
    return WatchResult{WatchEnd::kStopped, 0, {}};
  }
  if (clean && !failure && !ended) deliver([&] { lines.finish(); });
  if (failure) std::rethrow_exception(failure);
  if (ended) return *ended;
  return WatchResult{clean ? WatchEnd::kServerClosed : WatchEnd::kBroken, 0, {}};
}

}  // namespace gantry::etcd
