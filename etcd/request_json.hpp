// The JSON bodies of etcd v3's gRPC gateway requests (rpc.proto's messages in
// proto3's JSON mapping: bytes as base64, int64 as decimal strings).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "etcd/types.hpp"

namespace gantry::etcd {

// RangeRequest for one key, or for every key starting with `key` when `prefix`.
nlohmann::json range_request(const std::string& key, bool prefix);
// At most `limit` keys of [key, range_end), read at `revision` (0: the latest).
nlohmann::json range_page_request(const std::string& key, const std::string& range_end,
                                  std::int64_t limit, std::int64_t revision);
nlohmann::json put_request(const std::string& key, const std::string& value, std::int64_t lease);
nlohmann::json delete_request(const std::string& key, bool prefix);
nlohmann::json txn_request(const std::vector<Compare>& compares, const std::vector<Op>& success,
                           const std::vector<Op>& failure);
nlohmann::json watch_create_request(const std::string& prefix, std::int64_t from_revision);
// LeaseGrantRequest, LeaseRevokeRequest, LeaseKeepAliveRequest (TTL / ID).
nlohmann::json lease_grant_request(std::int64_t ttl_seconds);
nlohmann::json lease_id_request(std::int64_t lease);
nlohmann::json compaction_request(std::int64_t revision);
// AuthenticateRequest: a user's name and password, for a token.
nlohmann::json authenticate_request(const std::string& user, const std::string& password);

}  // namespace gantry::etcd
