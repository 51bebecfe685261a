// Typed accessors over nlohmann::json that throw hub::FieldError with the full
// field path ("spec.replicaRequirements.resourceRequest.cpu"): the one place
// where "this field has the wrong type" errors are worded.
//
// Paths are dot-separated keys; a key never contains a dot here (Karmada's
// annotation keys are read with optional_string_member, which takes one key).
// `base` is where `root` itself sits in the document ("spec.tasks[1]"): errors
// name base + path, so that a value read from a nested object is still found.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace gantry::karmada {

// "spec" + "queue" -> "spec.queue"; "" + "kind" -> "kind".
std::string join_path(std::string_view parent, std::string_view key);

// The node at `path` under `root`, or nullptr when a key on the way is
// missing or null. A non-object on the way throws FieldError naming it.
const nlohmann::json* find_at(const nlohmann::json& root, std::string_view path,
                              std::string_view base = {});

// Required accessors: a missing field throws FieldError "is required".
const nlohmann::json& object_at(const nlohmann::json& root, std::string_view path,
                                std::string_view base = {});
std::string string_at(const nlohmann::json& root, std::string_view path,
                      std::string_view base = {});
std::int64_t int_at(const nlohmann::json& root, std::string_view path, std::string_view base = {});

// Optional accessors: a missing (or null) field gives nullopt / nullptr; a
// present field of the wrong type still throws.
const nlohmann::json* optional_object_at(const nlohmann::json& root, std::string_view path,
                                         std::string_view base = {});
const nlohmann::json* optional_array_at(const nlohmann::json& root, std::string_view path,
                                        std::string_view base = {});
std::optional<std::string> optional_string_at(const nlohmann::json& root, std::string_view path,
                                              std::string_view base = {});
std::optional<std::int64_t> optional_int_at(const nlohmann::json& root, std::string_view path,
                                            std::string_view base = {});
std::optional<bool> optional_bool_at(const nlohmann::json& root, std::string_view path,
                                     std::string_view base = {});

// A value already in hand (an array item, a member whose key has dots) as a
// whole number / an int32; the value must be present (not null).
std::int64_t int_value(const nlohmann::json& value, std::string_view path);
std::int32_t int32_value(const nlohmann::json& value, std::string_view path);

// A JSON int32 (Kubernetes' int32 fields: replicas, counts) at `path`.
std::optional<std::int32_t> optional_int32_at(const nlohmann::json& root, std::string_view path,
                                              std::string_view base = {});

// One member of an object by a key that may contain dots ("gantry.io/split").
std::optional<std::string> optional_string_member(const nlohmann::json& object,
                                                  const std::string& key,
                                                  std::string_view object_path);

// An object of strings (labels, annotations, nodeSelector); missing -> {}.
protocol::Labels string_map_at(const nlohmann::json& root, std::string_view path,
                               std::string_view base = {});

// A quantity (a string such as "500m", or a plain number) as text, and in
// milli-units; a bad one throws FieldError naming `path`.
std::string quantity_text(const nlohmann::json& value, std::string_view path);
std::int64_t quantity_milli(const nlohmann::json& value, std::string_view path);

// A Kubernetes ResourceList ({"cpu": "500m", "memory": "1Gi"}) in milli-units;
// missing -> {}. A bad quantity throws FieldError naming "path.resource".
protocol::ResourceList resource_list_at(const nlohmann::json& root, std::string_view path,
                                        std::string_view base = {});

// The JSON type's name for error messages ("string", "number", ...).
std::string type_text(const nlohmann::json& value);

}  // namespace gantry::karmada
