// Reading etcd v3's gRPC gateway answers: bounded parsing, the gateway's error
// objects, and the messages in proto3's JSON mapping (bytes as base64, int64
// as strings, fields at their default value left out).
//
// Every function throws std::runtime_error saying what is wrong without naming
// the endpoint: the transport puts "etcd endpoint <url>: POST <path>: " before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "etcd/limits.hpp"
#include "etcd/types.hpp"

namespace gantry::etcd {

// etcd answered with a gRPC error (lease not found, request too large...).
class GrpcError : public std::runtime_error {
 public:
  GrpcError(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }  // the gRPC status code, e.g. 5 (NOT_FOUND)

 private:
  int code_;
};

// The answer as JSON once it is within `max_bytes` and `max_depth` and is not
// one of the gateway's errors: {"error","code","message"} for unary calls,
// {"error":{"grpc_code","message",...}} inside a stream. Throws GrpcError for
// those, std::runtime_error naming the limit or quoting the start of the text
// otherwise.
nlohmann::json parse_answer(std::string_view text, std::size_t max_bytes = kMaxAnswerBytes,
                            std::size_t max_depth = kMaxAnswerDepth);

// A streamed call's message: the gateway wraps each one in {"result": ...}.
const nlohmann::json& stream_result(const nlohmann::json& message);

std::int64_t header_revision(const nlohmann::json& response);
RangeResult decode_range(const nlohmann::json& response);
std::int64_t decode_deleted(const nlohmann::json& response);
TxnResult decode_txn(const nlohmann::json& response);
// LeaseGrantResponse's ID; LeaseKeepAliveResponse's TTL (0: the lease is gone).
std::int64_t decode_lease_id(const nlohmann::json& response);
std::int64_t decode_ttl(const nlohmann::json& response);
// AuthenticateResponse's token (never "").
std::string decode_token(const nlohmann::json& response);

// One WatchResponse.
struct WatchMessage {
  bool created = false;
  bool canceled = false;
  std::int64_t compact_revision = 0;  // > 0: the start revision was compacted away
  std::string cancel_reason;
  WatchBatch batch;
};
WatchMessage decode_watch(const nlohmann::json& result);

}  // namespace gantry::etcd
