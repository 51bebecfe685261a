// Kubernetes PriorityClass objects (scheduling.k8s.io/v1, kind PriorityClass)
// and the set of classes the hub knows: the embedded defaults plus those
// applied with `gantryctl apply -f`.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/volcano_job.hpp"

namespace gantry::config {

// Kubernetes' HighestUserDefinablePriority: above it only system classes.
inline constexpr std::int64_t kMaxUserPriority = 1'000'000'000;
inline constexpr const char* kPreemptLowerPriority = "PreemptLowerPriority";
inline constexpr const char* kPreemptNever = "Never";

struct PriorityClass {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  bool preempts = true;  // preemptionPolicy: PreemptLowerPriority (true) | Never
  std::string description;
  bool built_in = false;
};

// Fields: metadata.name (lowercase DNS subdomain, no "system-" prefix),
// metadata.labels / annotations, value (required, at most 1,000,000,000),
// globalDefault, preemptionPolicy, description. Throws hub::FieldError
// naming the field and value.
PriorityClass parse_priority_class(std::string_view yaml);

// The `kind` of a YAML document ("" when absent): apply dispatches on it.
// Throws hub::FieldError when the text is not a YAML map.
std::string document_kind(std::string_view yaml);

// What a job's spec.priorityClassName resolves to.
struct ResolvedPriority {
  std::int32_t value = 0;
  bool preempts = true;
};

// Thread-safe: several queue actors validate submissions against it at once.
class PriorityClassRegistry {
 public:
  PriorityClassRegistry();  // knows the embedded defaults

  // Creates (true) or replaces (false) a class. Throws hub::FieldError when
  // another class is already the global default, or when the value of an
  // applied class would change (immutable, as in Kubernetes). Applying a
  // built-in name overrides the built-in until the applied class is deleted.
  bool apply(const PriorityClass& priority_class);
  // Throws hub::FieldError naming metadata.name when there is no such
  // applied class (a built-in one cannot be deleted).
  void remove(std::string_view name);

  // Applied classes over the built-ins, by name.
  std::vector<PriorityClass> list() const;
  // "" means the globalDefault class, else value 0 that may preempt.
  std::optional<ResolvedPriority> resolve(std::string_view name) const;
  // Name -> value for parse_volcano_job, "" mapped to the global default.
  PriorityClasses values() const;

 private:
  const PriorityClass* find_locked(std::string_view name) const;
  const PriorityClass* global_default_locked() const;

  mutable std::mutex mutex_;
  std::map<std::string, PriorityClass, std::less<>> built_in_;
  std::map<std::string, PriorityClass, std::less<>> applied_;
};

}  // namespace gantry::config
