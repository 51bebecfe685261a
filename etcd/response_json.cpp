#include "etcd/response_json.hpp"

#include <charconv>

#include "config/bounded_json.hpp"
#include "support/base64.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::etcd {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& problem) {
  throw std::runtime_error(problem);
}

const json& object_at(const json& parent, const char* name) {
  static const json kEmpty = json::object();
  const auto found = parent.find(name);
  if (found == parent.end()) return kEmpty;
  if (!found->is_object()) bad(std::string("field \"") + name + "\" is not an object");
  return *found;
}

const json& array_at(const json& parent, const char* name) {
  static const json kEmpty = json::array();
  const auto found = parent.find(name);
  if (found == parent.end()) return kEmpty;
  if (!found->is_array()) bad(std::string("field \"") + name + "\" is not an array");
  return *found;
}

// int64 fields arrive as decimal strings; a field at 0 is left out.
std::int64_t int64_at(const json& parent, const char* name) {
  const auto found = parent.find(name);
  if (found == parent.end()) return 0;
  if (found->is_number_integer()) return found->get<std::int64_t>();
  const std::string* text = found->get_ptr<const std::string*>();
  std::int64_t number = 0;
  if (text != nullptr) {
    const char* end = text->data() + text->size();
    const auto [stop, error] = std::from_chars(text->data(), end, number);
    if (error == std::errc() && stop == end && !text->empty()) return number;
  }
  bad(std::string("field \"") + name + "\" is not an int64: " + config::json_excerpt(*found));
}

bool bool_at(const json& parent, const char* name) {
  const auto found = parent.find(name);
  if (found == parent.end()) return false;
  if (!found->is_boolean()) bad(std::string("field \"") + name + "\" is not a boolean");
  return found->get<bool>();
}

std::string string_at(const json& parent, const char* name) {
  const auto found = parent.find(name);
  if (found == parent.end()) return {};
  if (!found->is_string()) bad(std::string("field \"") + name + "\" is not a string");
  return found->get<std::string>();
}

std::string bytes_at(const json& parent, const char* name) {
  const std::string text = string_at(parent, name);
  auto bytes = support::decode_base64(text);
  if (!bytes) bad(std::string("field \"") + name + "\" is not base64");
  return std::move(*bytes);
}

KeyValue decode_kv(const json& kv) {
  if (!kv.is_object()) bad("a kv is not an object");
  return KeyValue{
      bytes_at(kv, "key"),          bytes_at(kv, "value"),   int64_at(kv, "create_revision"),
      int64_at(kv, "mod_revision"), int64_at(kv, "version"), int64_at(kv, "lease")};
}

std::vector<KeyValue> decode_kvs(const json& response) {
  std::vector<KeyValue> kvs;
  for (const auto& kv : array_at(response, "kvs")) kvs.push_back(decode_kv(kv));
  return kvs;
}

// One of TxnResponse's responses: a oneof of response_range / _put / _delete_range.
OpResult decode_op_result(const json& response) {
  if (!response.is_object()) bad("a txn response is not an object");
  OpResult result;
  if (response.contains("response_range")) {
    result.kvs = decode_kvs(object_at(response, "response_range"));
  } else if (response.contains("response_delete_range")) {
    result.deleted = decode_deleted(object_at(response, "response_delete_range"));
  }
  return result;
}

Event decode_event(const json& event) {
  if (!event.is_object()) bad("a watch event is not an object");
  const std::string type = string_at(event, "type");  // PUT, the default, is left out
  if (!type.empty() && type != "PUT" && type != "DELETE") bad("unknown event type " + type);
  const auto kind = type == "DELETE" ? Event::Type::kDelete : Event::Type::kPut;
  return Event{kind, decode_kv(object_at(event, "kv"))};
}

// Unary errors: {"error": "text", "code": 5, "message": "text"}; stream errors
// (grpc-gateway v1): {"error": {"grpc_code": 5, "message": "text", ...}}.
void throw_if_error(const json& answer) {
  const auto error = answer.find("error");
  if (error == answer.end()) return;
  const json& details = error->is_object() ? *error : answer;
  const char* code_field = error->is_object() ? "grpc_code" : "code";
  const auto code = details.find(code_field);
  std::string message = string_at(details, "message");
  if (message.empty()) message = config::json_excerpt(*error);
  throw GrpcError(message,
                  code != details.end() && code->is_number_integer() ? code->get<int>() : -1);
}

}  // namespace

json parse_answer(std::string_view text, std::size_t max_bytes, std::size_t max_depth) {
  if (text.size() > max_bytes) {
    bad("answer of " + std::to_string(text.size()) + " bytes is over the limit of " +
        std::to_string(max_bytes) + " bytes");
  }
  if (config::json_depth_violation(text, max_depth) != std::string_view::npos) {
    bad("answer nests deeper than the limit of " + std::to_string(max_depth) + " levels");
  }
  json answer = config::parse_bounded_json_or_discarded(text, max_depth);
  if (answer.is_discarded() || !answer.is_object()) {
    bad("answer is not a JSON object: \"" + support::text_excerpt(text, 80) + "\"");
  }
  throw_if_error(answer);
  return answer;
}

const json& stream_result(const json& message) {
  if (!message.contains("result")) bad("stream message without \"result\"");
  return object_at(message, "result");
}

std::int64_t header_revision(const json& response) {
  return int64_at(object_at(response, "header"), "revision");
}

RangeResult decode_range(const json& response) {
  return RangeResult{header_revision(response), decode_kvs(response), bool_at(response, "more")};
}

std::int64_t decode_deleted(const json& response) {
  return int64_at(response, "deleted");
}

TxnResult decode_txn(const json& response) {
  TxnResult result{bool_at(response, "succeeded"), header_revision(response), {}};
  for (const auto& op : array_at(response, "responses")) {
    result.results.push_back(decode_op_result(op));
  }
  return result;
}

std::int64_t decode_lease_id(const json& response) {
  const std::int64_t id = int64_at(response, "ID");
  if (id == 0) bad("lease grant without an ID");
  return id;
}

std::int64_t decode_ttl(const json& response) {
  return int64_at(response, "TTL");
}

std::string decode_token(const json& response) {
  std::string token = string_at(response, "token");
  if (token.empty()) bad("authenticate answer without a token");
  // It goes into a header: simple tokens and JWTs are printable ASCII.
  for (const char c : token) {
    if (c <= ' ' || c > '~') bad("authenticate answer with a token that is not printable ASCII");
  }
  return token;
}

WatchMessage decode_watch(const json& result) {
  WatchMessage message;
  message.created = bool_at(result, "created");
  message.canceled = bool_at(result, "canceled");
  message.compact_revision = int64_at(result, "compact_revision");
  message.cancel_reason = string_at(result, "cancel_reason");
  message.batch.revision = header_revision(result);
  for (const auto& event : array_at(result, "events")) {
    message.batch.events.push_back(decode_event(event));
  }
  return message;
}

}  // namespace gantry::etcd
