#include "karmada/json_fields.hpp"

#include <algorithm>
#include <stdexcept>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "hub/quantity.hpp"

namespace gantry::karmada {

using hub::FieldError;
using nlohmann::json;

namespace {

// Long values (a whole nested object) would drown the message: the field
// name already says where to look. json_excerpt never dumps more than it
// shows, however large or deep the value.
constexpr std::size_t kMaxValueText = 80;

std::string value_text(const json& value) {
  if (value.is_string())
    return support::text_excerpt(value.get_ref<const std::string&>(), kMaxValueText);
  return config::json_excerpt(value, kMaxValueText);
}

[[noreturn]] void wrong_type(const std::string& field, const json& value, const char* expected) {
  throw FieldError(field, value_text(value),
                   std::string("must be ") + expected + ", not " + type_text(value));
}

[[noreturn]] void missing(const std::string& field) {
  throw FieldError(field, "", "is required");
}

bool absent(const json* node) {
  return node == nullptr || node->is_null();
}

std::int64_t whole_number(const json& value, const std::string& field) {
  if (!value.is_number_integer()) wrong_type(field, value, "a whole number");
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw FieldError(field, value_text(value), "is too large");
  return value.get<std::int64_t>();
}

}  // namespace

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  if (key.empty()) return std::string(parent);
  std::string path(parent);
  path += '.';
  path += key;
  return path;
}

std::string type_text(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a fractional number";
    default:
      return "binary data";
  }
}

const json* find_at(const json& root, std::string_view path, std::string_view base) {
  const json* node = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    if (absent(node)) return nullptr;
    if (!node->is_object()) {
      const std::string_view walked = path.substr(0, start == 0 ? 0 : start - 1);
      const std::string field = join_path(base, walked);
      wrong_type(field.empty() ? "document" : field, *node, "an object");
    }
    const auto member = node->find(std::string(path.substr(start, dot - start)));
    if (member == node->end()) return nullptr;
    node = &*member;
    start = dot + 1;
  }
  return absent(node) ? nullptr : node;
}

const json* optional_object_at(const json& root, std::string_view path, std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node != nullptr && !node->is_object()) wrong_type(join_path(base, path), *node, "an object");
  return node;
}

const json* optional_array_at(const json& root, std::string_view path, std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node != nullptr && !node->is_array()) wrong_type(join_path(base, path), *node, "an array");
  return node;
}

std::optional<std::string> optional_string_at(const json& root, std::string_view path,
                                              std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node == nullptr) return std::nullopt;
  if (!node->is_string()) wrong_type(join_path(base, path), *node, "a string");
  return node->get<std::string>();
}

std::optional<std::int64_t> optional_int_at(const json& root, std::string_view path,
                                            std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node == nullptr) return std::nullopt;
  return whole_number(*node, join_path(base, path));
}

std::int64_t int_value(const json& value, std::string_view path) {
  if (value.is_null()) missing(std::string(path));
  return whole_number(value, std::string(path));
}

std::int32_t int32_value(const json& value, std::string_view path) {
  const std::int64_t number = int_value(value, path);
  if (number < INT32_MIN || number > INT32_MAX)
    throw FieldError(std::string(path), std::to_string(number), "does not fit a 32-bit integer");
  return static_cast<std::int32_t>(number);
}

std::optional<std::int32_t> optional_int32_at(const json& root, std::string_view path,
                                              std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node == nullptr) return std::nullopt;
  return int32_value(*node, join_path(base, path));
}

std::optional<bool> optional_bool_at(const json& root, std::string_view path,
                                     std::string_view base) {
  const json* node = find_at(root, path, base);
  if (node == nullptr) return std::nullopt;
  if (!node->is_boolean()) wrong_type(join_path(base, path), *node, "true or false");
  return node->get<bool>();
}

const json& object_at(const json& root, std::string_view path, std::string_view base) {
  const json* node = optional_object_at(root, path, base);
  if (node == nullptr) missing(join_path(base, path));
  return *node;
}

std::string string_at(const json& root, std::string_view path, std::string_view base) {
  std::optional<std::string> value = optional_string_at(root, path, base);
  if (!value) missing(join_path(base, path));
  return std::move(*value);
}

std::int64_t int_at(const json& root, std::string_view path, std::string_view base) {
  const std::optional<std::int64_t> value = optional_int_at(root, path, base);
  if (!value) missing(join_path(base, path));
  return *value;
}

std::optional<std::string> optional_string_member(const json& object, const std::string& key,
                                                  std::string_view object_path) {
  const auto member = object.find(key);
  if (member == object.end() || member->is_null()) return std::nullopt;
  if (!member->is_string()) wrong_type(join_path(object_path, key), *member, "a string");
  return member->get<std::string>();
}

protocol::Labels string_map_at(const json& root, std::string_view path, std::string_view base) {
  protocol::Labels out;
  const json* node = optional_object_at(root, path, base);
  if (node == nullptr) return out;
  const std::string field = join_path(base, path);
  for (const auto& [key, value] : node->items()) {
    if (!value.is_string()) wrong_type(join_path(field, key), value, "a string");
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

std::string quantity_text(const json& value, std::string_view path) {
  // Kubernetes writes quantities as strings; a hand-written object may use a
  // plain number, which the API server accepts too.
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  wrong_type(std::string(path), value, "a quantity string");
}

std::int64_t quantity_milli(const json& value, std::string_view path) {
  const std::string text = quantity_text(value, path);
  try {
    return hub::parse_quantity_milli(text);
  } catch (const std::invalid_argument&) {
    throw FieldError(std::string(path), text, "is not a valid quantity");
  }
}

protocol::ResourceList resource_list_at(const json& root, std::string_view path,
                                        std::string_view base) {
  protocol::ResourceList out;
  const json* node = optional_object_at(root, path, base);
  if (node == nullptr) return out;
  const std::string field = join_path(base, path);
  for (const auto& [name, value] : node->items())
    out.emplace(name, quantity_milli(value, join_path(field, name)));
  return out;
}

}  // namespace gantry::karmada
