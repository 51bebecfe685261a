#include "config/priority_class.hpp"

#include <regex>
#include <set>

#include "config/yaml_fields.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

constexpr const char* kApiVersion = "scheduling.k8s.io/v1";

const std::set<std::string> kTopFields{"apiVersion", "kind",          "metadata",   "value",
                                       "globalDefault", "preemptionPolicy", "description"};
const std::set<std::string> kMetadataFields{"name", "labels", "annotations"};

void check_class_name(const std::string& name) {
  static const std::regex kDnsSubdomain(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  if (name.empty()) throw FieldError("metadata.name", "", "is required");
  if (name.size() > 253 || !std::regex_match(name, kDnsSubdomain))
    throw FieldError("metadata.name", name,
                     "must be a lowercase DNS subdomain (letters, digits, '-' and '.')");
  // Kubernetes reserves the prefix for its own system-node-critical and
  // system-cluster-critical classes.
  if (name.rfind("system-", 0) == 0)
    throw FieldError("metadata.name", name, "names starting with system- are reserved");
}

std::int32_t read_value(const YAML::Node& root) {
  if (!root["value"] || root["value"].IsNull())
    throw FieldError("value", "", "is required (an integer, at most 1000000000)");
  const std::int32_t value = optional_int(root, "value", "", 0);
  if (value > kMaxUserPriority)
    throw FieldError("value", std::to_string(value),
                     "must be at most 1000000000 (higher values are reserved for system classes)");
  return value;
}

bool read_global_default(const YAML::Node& root) {
  const std::string text = optional_string(root, "globalDefault", "");
  if (text.empty() || text == "false") return false;
  if (text == "true") return true;
  throw FieldError("globalDefault", text, "must be true or false");
}

bool read_preempts(const YAML::Node& root) {
  const std::string text = optional_string(root, "preemptionPolicy", "");
  if (text.empty() || text == kPreemptLowerPriority) return true;
  if (text == kPreemptNever) return false;
  throw FieldError("preemptionPolicy", text, "must be PreemptLowerPriority or Never");
}

PriorityClass built_in(const char* name, std::int32_t value, const char* description) {
  PriorityClass priority_class;
  priority_class.name = name;
  priority_class.value = value;
  priority_class.description = description;
  priority_class.built_in = true;
  return priority_class;
}

}  // namespace

PriorityClass parse_priority_class(std::string_view yaml) try {
  const YAML::Node root = load_document(yaml);
  require_map(root, "");
  reject_unknown(root, kTopFields, "");
  const std::string api_version = optional_string(root, "apiVersion", "");
  if (api_version != kApiVersion)
    throw FieldError("apiVersion", api_version, std::string("must be ") + kApiVersion);
  const std::string kind = optional_string(root, "kind", "");
  if (kind != "PriorityClass") throw FieldError("kind", kind, "must be PriorityClass");
  const YAML::Node metadata = root["metadata"];
  if (!metadata) throw FieldError("metadata.name", "", "is required");
  require_map(metadata, "metadata");
  reject_unknown(metadata, kMetadataFields, "metadata");
  PriorityClass priority_class;
  priority_class.name = optional_string(metadata, "name", "metadata");
  check_class_name(priority_class.name);
  string_map(metadata["labels"], "metadata.labels");
  string_map(metadata["annotations"], "metadata.annotations");
  priority_class.value = read_value(root);
  priority_class.global_default = read_global_default(root);
  priority_class.preempts = read_preempts(root);
  priority_class.description = optional_string(root, "description", "");
  return priority_class;
} catch (const YAML::Exception& error) {
  // A node used as the wrong kind past the typed accessors: still a FieldError.
  throw yaml_exception_error(error);
}

std::string document_kind(std::string_view yaml) try {
  const YAML::Node root = load_document(yaml);
  require_map(root, "");
  return optional_string(root, "kind", "");
} catch (const YAML::Exception& error) {
  throw yaml_exception_error(error);
}

// ------------------------------------------------------------------ registry

PriorityClassRegistry::PriorityClassRegistry() {
  for (PriorityClass priority_class :
       {built_in("high-priority", 1000, "Gantry's built-in class for urgent jobs"),
        built_in("default-priority", 0, "Gantry's built-in class, the same as none"),
        built_in("low-priority", -1000, "Gantry's built-in class for jobs that may wait")})
    built_in_.emplace(priority_class.name, priority_class);
}

const PriorityClass* PriorityClassRegistry::find_locked(std::string_view name) const {
  if (auto it = applied_.find(name); it != applied_.end()) return &it->second;
  if (auto it = built_in_.find(name); it != built_in_.end()) return &it->second;
  return nullptr;
}

const PriorityClass* PriorityClassRegistry::global_default_locked() const {
  for (const auto& [name, priority_class] : applied_)
    if (priority_class.global_default) return &priority_class;
  return nullptr;
}

bool PriorityClassRegistry::apply(const PriorityClass& priority_class) {
  std::lock_guard lock(mutex_);
  const PriorityClass* other_default = global_default_locked();
  if (priority_class.global_default && other_default && other_default->name != priority_class.name)
    throw FieldError("globalDefault", "true",
                     "PriorityClass " + other_default->name +
                         " is already the global default; only one class may be");
  const auto existing = applied_.find(priority_class.name);
  if (existing != applied_.end() && existing->second.value != priority_class.value)
    throw FieldError("value", std::to_string(priority_class.value),
                     "is immutable (PriorityClass " + priority_class.name + " has " +
                         std::to_string(existing->second.value) +
                         "); delete the class and apply it again");
  PriorityClass stored = priority_class;
  stored.built_in = false;
  const bool created = existing == applied_.end();
  applied_.insert_or_assign(stored.name, std::move(stored));
  return created;
}

void PriorityClassRegistry::remove(std::string_view name) {
  std::lock_guard lock(mutex_);
  const auto it = applied_.find(name);
  if (it != applied_.end()) {
    applied_.erase(it);
    return;
  }
  if (built_in_.contains(name))
    throw FieldError("metadata.name", std::string(name),
                     "is a built-in PriorityClass and cannot be deleted");
  throw FieldError("metadata.name", std::string(name), "no such PriorityClass");
}

std::vector<PriorityClass> PriorityClassRegistry::list() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, PriorityClass> all(built_in_.begin(), built_in_.end());
  for (const auto& [name, priority_class] : applied_) all.insert_or_assign(name, priority_class);
  std::vector<PriorityClass> out;
  out.reserve(all.size());
  for (auto& [name, priority_class] : all) out.push_back(std::move(priority_class));
  return out;
}

std::optional<ResolvedPriority> PriorityClassRegistry::resolve(std::string_view name) const {
  std::lock_guard lock(mutex_);
  const PriorityClass* found = name.empty() ? global_default_locked() : find_locked(name);
  if (found) return ResolvedPriority{found->value, found->preempts};
  if (name.empty()) return ResolvedPriority{};
  return std::nullopt;
}

PriorityClasses PriorityClassRegistry::values() const {
  std::lock_guard lock(mutex_);
  PriorityClasses values;
  for (const auto& [name, priority_class] : built_in_) values[name] = priority_class.value;
  for (const auto& [name, priority_class] : applied_) values[name] = priority_class.value;
  const PriorityClass* global_default = global_default_locked();
  values[""] = global_default ? global_default->value : 0;
  return values;
}

}  // namespace gantry::config
