#include "etcd/request_json.hpp"

#include "etcd/key_range.hpp"
#include "support/base64.hpp"

namespace gantry::etcd {
namespace {

using support::encode_base64;
using nlohmann::json;

// proto3's JSON mapping writes int64 as a string; the gateway accepts both,
// etcd's own clients send strings.
std::string int64_text(std::int64_t number) {
  return std::to_string(number);
}

// The key and, for a prefix, its range_end. The empty prefix means every key:
// etcd takes key "\0" with range_end "\0" as "from the first key to the end".
void set_key_range(json& request, const std::string& key, bool prefix) {
  const std::string first = prefix && key.empty() ? std::string(1, '\0') : key;
  request["key"] = encode_base64(first);
  if (prefix) request["range_end"] = encode_base64(prefix_end(key));
}

const char* target_name(Compare::Target target) {
  switch (target) {
    case Compare::Target::kVersion:
      return "VERSION";
    case Compare::Target::kCreateRevision:
      return "CREATE";
    case Compare::Target::kModRevision:
      return "MOD";
    case Compare::Target::kValue:
      return "VALUE";
  }
  return "MOD";
}

const char* result_name(Compare::Result result) {
  switch (result) {
    case Compare::Result::kEqual:
      return "EQUAL";
    case Compare::Result::kNotEqual:
      return "NOT_EQUAL";
    case Compare::Result::kLess:
      return "LESS";
    case Compare::Result::kGreater:
      return "GREATER";
  }
  return "EQUAL";
}

// The compared field is a oneof named after the target.
const char* operand_field(Compare::Target target) {
  switch (target) {
    case Compare::Target::kVersion:
      return "version";
    case Compare::Target::kCreateRevision:
      return "create_revision";
    case Compare::Target::kModRevision:
      return "mod_revision";
    case Compare::Target::kValue:
      return "value";
  }
  return "mod_revision";
}

json compare_json(const Compare& compare) {
  json out = {{"key", encode_base64(compare.key)},
              {"target", target_name(compare.target)},
              {"result", result_name(compare.result)}};
  if (compare.target == Compare::Target::kValue) {
    out["value"] = encode_base64(compare.bytes);
  } else {
    out[operand_field(compare.target)] = int64_text(compare.number);
  }
  return out;
}

json op_json(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kPut:
      return {{"request_put", put_request(op.key, op.value, op.lease)}};
    case Op::Kind::kDelete:
      return {{"request_delete_range", delete_request(op.key, op.prefix)}};
    case Op::Kind::kRange:
      return {{"request_range", range_request(op.key, op.prefix)}};
  }
  return json::object();
}

json ops_json(const std::vector<Op>& ops) {
  json out = json::array();
  for (const auto& op : ops) out.push_back(op_json(op));
  return out;
}

}  // namespace

json range_request(const std::string& key, bool prefix) {
  json request = json::object();
  set_key_range(request, key, prefix);
  return request;
}

json range_page_request(const std::string& key, const std::string& range_end, std::int64_t limit,
                        std::int64_t revision) {
  json request = {{"key", encode_base64(key)},
                  {"range_end", encode_base64(range_end)},
                  {"limit", int64_text(limit)}};
  if (revision != 0) request["revision"] = int64_text(revision);
  return request;
}

json put_request(const std::string& key, const std::string& value, std::int64_t lease) {
  json request = {{"key", encode_base64(key)}, {"value", encode_base64(value)}};
  if (lease != 0) request["lease"] = int64_text(lease);
  return request;
}

json delete_request(const std::string& key, bool prefix) {
  return range_request(key, prefix);  // DeleteRangeRequest has the same key fields
}

json txn_request(const std::vector<Compare>& compares, const std::vector<Op>& success,
                 const std::vector<Op>& failure) {
  json compare_list = json::array();
  for (const auto& compare : compares) compare_list.push_back(compare_json(compare));
  return {
      {"compare", compare_list}, {"success", ops_json(success)}, {"failure", ops_json(failure)}};
}

json watch_create_request(const std::string& prefix, std::int64_t from_revision) {
  json create = range_request(prefix, true);
  if (from_revision > 0) create["start_revision"] = int64_text(from_revision);
  return {{"create_request", create}};
}

json lease_grant_request(std::int64_t ttl_seconds) {
  return {{"TTL", int64_text(ttl_seconds)}};
}

json lease_id_request(std::int64_t lease) {
  return {{"ID", int64_text(lease)}};
}

json compaction_request(std::int64_t revision) {
  // physical: the answer comes once the old revisions are really gone, so a
  // watch from one of them afterwards is reliably refused.
  return {{"revision", int64_text(revision)}, {"physical", true}};
}

json authenticate_request(const std::string& user, const std::string& password) {
  return {{"name", user}, {"password", password}};
}

}  // namespace gantry::etcd
