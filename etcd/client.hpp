// A small etcd v3 client for Gantry's highly available hub (issue 31): the
// hub's store on etcd and its leader election (a lease kept alive, every
// leader write a transaction guarded by the leader key's revision) are built
// on it. It speaks etcd's gRPC JSON gateway (/v3/...) over HTTP/1.1, which
// etcd serves on its client port next to gRPC, so that Gantry needs no gRPC or
// protobuf stack. Tested against etcd 3.4.23 (Debian bookworm's etcd-server);
// the /v3 gateway paths are the same in 3.5. Endpoints are http:// or, with
// etcd's TLS, https://; with credentials every call is authenticated
// (etcd/access.hpp).
//
// Thread-safe. Every call throws std::runtime_error (GrpcError when etcd
// answered with an error) whose message starts with "etcd endpoint <url>:"
// or, when none could be connected, "etcd: no endpoint could be connected".
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "etcd/response_json.hpp"
#include "etcd/transport.hpp"
#include "etcd/types.hpp"

namespace gantry::etcd {

// How a watch ended (see Client::watch).
enum class WatchEnd {
  kStopped,       // the caller's stop flag rose
  kServerClosed,  // the stream ended cleanly (etcd shutting down)
  kBroken,        // the connection broke: resume from the last revision + 1
  kCompacted,     // from_revision is compacted away: range again, then watch
  kCanceled,      // etcd canceled the watch for another reason
};
const char* to_string(WatchEnd end);

struct WatchResult {
  WatchEnd end = WatchEnd::kStopped;
  std::int64_t compact_revision = 0;  // kCompacted: the oldest revision still there
  std::string reason;                 // kCanceled: etcd's cancel_reason
};

class Client {
 public:
  // `endpoints`: "http://host:port" or "https://host:port" each, tried in
  // order when one cannot be connected. Throws std::runtime_error when one is
  // not such a URL, or options.access's TLS files cannot be read or used.
  explicit Client(std::vector<std::string> endpoints, TransportOptions options = {});

  // The key (kvs empty when it does not exist), or every key with the prefix
  // ("" for all keys), sorted by key.
  RangeResult get(const std::string& key);
  RangeResult range(const std::string& prefix);
  // Every key with `prefix` (not ""), in key order, handed to `each`, read
  // `page` keys per request and all at one revision, which it returns: a
  // prefix too large for one answer is read whole and consistent.
  std::int64_t scan(const std::string& prefix, std::int64_t page,
                    const std::function<void(const KeyValue&)>& each);
  // Each returns the store's revision after the write.
  std::int64_t put(const std::string& key, const std::string& value, std::int64_t lease = 0);
  // The number of keys deleted.
  std::int64_t remove(const std::string& key);
  std::int64_t remove_prefix(const std::string& prefix);
  // Runs `success` when every compare holds, `failure` otherwise, atomically.
  TxnResult txn(const std::vector<Compare>& compares, const std::vector<Op>& success,
                const std::vector<Op>& failure = {});
  // Drops the history before `revision`; watches from earlier revisions are
  // then refused as compacted.
  void compact(std::int64_t revision);

  // A lease of at least `ttl_seconds` (etcd may raise a very short TTL to its
  // minimum); its ID.
  std::int64_t grant_lease(std::int64_t ttl_seconds);
  // Renews the lease once; its TTL from now, 0 when it no longer exists.
  std::int64_t keep_alive_once(std::int64_t lease);
  // Ends the lease and deletes its keys. Throws GrpcError (code 5) when it
  // does not exist.
  void revoke(std::int64_t lease);

  // Streams the changes of every key with `prefix` from `from_revision` (0:
  // from now on) to on_events, one call per etcd answer, in revision order,
  // until `stop` rises (checked every 200 ms) or the stream ends. Throws like
  // every call when the watch cannot be set up, or what on_events throws. A
  // watch etcd refuses for its token is set up again once with a fresh one.
  WatchResult watch(const std::string& prefix, std::int64_t from_revision,
                    const std::function<void(const WatchBatch&)>& on_events,
                    const std::atomic<bool>& stop);

 private:
  WatchResult watch_once(const std::string& prefix, std::int64_t from_revision,
                         const std::function<void(const WatchBatch&)>& on_events,
                         const std::atomic<bool>& stop, const std::string& token);

  Transport transport_;
};

}  // namespace gantry::etcd
