#include "etcd/client.hpp"

#include <utility>

#include "etcd/key_range.hpp"
#include "etcd/request_json.hpp"

namespace gantry::etcd {

using nlohmann::json;

Client::Client(std::vector<std::string> endpoints, TransportOptions options)
    : transport_(std::move(endpoints), std::move(options)) {}

RangeResult Client::get(const std::string& key) {
  return transport_.call("/v3/kv/range", range_request(key, false), decode_range);
}

RangeResult Client::range(const std::string& prefix) {
  return transport_.call("/v3/kv/range", range_request(prefix, true), decode_range);
}

std::int64_t Client::scan(const std::string& prefix, std::int64_t page,
                          const std::function<void(const KeyValue&)>& each) {
  const std::string end = prefix_end(prefix);
  std::string from = prefix;
  std::int64_t revision = 0;
  while (true) {
    const RangeResult result = transport_.call(
        "/v3/kv/range", range_page_request(from, end, page, revision), decode_range);
    if (revision == 0) revision = result.revision;
    for (const KeyValue& kv : result.kvs) each(kv);
    if (!result.more || result.kvs.empty()) return revision;
    from = result.kvs.back().key + std::string(1, '\0');  // the next key after it
  }
}

std::int64_t Client::put(const std::string& key, const std::string& value, std::int64_t lease) {
  return transport_.call("/v3/kv/put", put_request(key, value, lease), header_revision);
}

std::int64_t Client::remove(const std::string& key) {
  return transport_.call("/v3/kv/deleterange", delete_request(key, false), decode_deleted);
}

std::int64_t Client::remove_prefix(const std::string& prefix) {
  return transport_.call("/v3/kv/deleterange", delete_request(prefix, true), decode_deleted);
}

TxnResult Client::txn(const std::vector<Compare>& compares, const std::vector<Op>& success,
                      const std::vector<Op>& failure) {
  return transport_.call("/v3/kv/txn", txn_request(compares, success, failure), decode_txn);
}

void Client::compact(std::int64_t revision) {
  transport_.call("/v3/kv/compaction", compaction_request(revision), header_revision);
}

std::int64_t Client::grant_lease(std::int64_t ttl_seconds) {
  return transport_.call("/v3/lease/grant", lease_grant_request(ttl_seconds), decode_lease_id);
}

// LeaseKeepAlive is a bidirectional stream; through the gateway one request
// body gets one answer, wrapped in {"result": ...}, and the stream ends.
std::int64_t Client::keep_alive_once(std::int64_t lease) {
  return transport_.call("/v3/lease/keepalive", lease_id_request(lease),
                         [](const json& answer) { return decode_ttl(stream_result(answer)); });
}

void Client::revoke(std::int64_t lease) {
  transport_.call("/v3/lease/revoke", lease_id_request(lease), header_revision);
}

}  // namespace gantry::etcd
