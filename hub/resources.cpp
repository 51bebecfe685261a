#include "hub/resources.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "hub/quantity.hpp"

namespace gantry::hub {

namespace {

struct NameTable {
  std::mutex mutex;
  std::vector<std::string> names{"cpu", "memory", std::string(kGpuResourceName)};
};

NameTable& table() {
  static NameTable instance;
  return instance;
}

// Call with the table's mutex held.
bool lookup(const NameTable& t, std::string_view name, ResourceId& id) {
  const auto found = std::find(t.names.begin(), t.names.end(), name);
  if (found == t.names.end()) return false;
  id = static_cast<ResourceId>(found - t.names.begin());
  return true;
}

}  // namespace

ResourceId ResourceNames::intern(std::string_view name) {
  ResourceId id = 0;
  if (!try_intern(name, id))
    throw std::length_error("resource \"" + std::string(name) + "\": at most " +
                            std::to_string(kMaxResources) +
                            " distinct resource names are supported");
  return id;
}

bool ResourceNames::try_intern(std::string_view name, ResourceId& id) {
  NameTable& t = table();
  std::lock_guard lock(t.mutex);
  if (lookup(t, name, id)) return true;
  if (t.names.size() >= kMaxResources) return false;
  t.names.emplace_back(name);
  id = static_cast<ResourceId>(t.names.size() - 1);
  return true;
}

bool ResourceNames::find(std::string_view name, ResourceId& id) {
  NameTable& t = table();
  std::lock_guard lock(t.mutex);
  return lookup(t, name, id);
}

std::string ResourceNames::name(ResourceId id) {
  NameTable& t = table();
  std::lock_guard lock(t.mutex);
  return id < t.names.size() ? t.names[id] : "resource#" + std::to_string(id);
}

std::size_t ResourceNames::count() {
  NameTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.names.size();
}

std::string gpu_product_resource_name(std::string_view product) {
  return std::string(kGpuResourceName) + "/" + std::string(product);
}

namespace {

std::atomic<std::uint32_t> gpu_product_ids{0};  // bit i: resource i is a GPU product

}  // namespace

bool gpu_product_resource(std::string_view product, ResourceId& id) {
  if (!ResourceNames::try_intern(gpu_product_resource_name(product), id)) return false;
  gpu_product_ids.fetch_or(1u << id, std::memory_order_relaxed);
  return true;
}

bool is_gpu_product(ResourceId id) {
  return id < kMaxResources && ((gpu_product_ids.load(std::memory_order_relaxed) >> id) & 1u);
}

ResourceVector ResourceVector::from_list(const protocol::ResourceList& list) {
  ResourceVector out;
  for (const auto& [name, milli] : list) out.values_[ResourceNames::intern(name)] += milli;
  return out;
}

protocol::ResourceList ResourceVector::to_list() const {
  protocol::ResourceList out;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (values_[i] != 0) out[ResourceNames::name(static_cast<ResourceId>(i))] = values_[i];
  return out;
}

bool ResourceVector::first_excess(const ResourceVector& limit, ResourceId& which) const {
  for (std::size_t i = 0; i < kMaxResources; ++i) {
    if (values_[i] > limit.values_[i]) {
      which = static_cast<ResourceId>(i);
      return true;
    }
  }
  return false;
}

ResourceVector ResourceVector::max_with(const ResourceVector& other) const {
  ResourceVector out;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    out.values_[i] = std::max(values_[i], other.values_[i]);
  return out;
}

ResourceVector ResourceVector::min_with(const ResourceVector& other) const {
  ResourceVector out;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    out.values_[i] = std::min(values_[i], other.values_[i]);
  return out;
}

std::string ResourceVector::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < kMaxResources; ++i) {
    if (values_[i] == 0) continue;
    const std::string name = ResourceNames::name(static_cast<ResourceId>(i));
    if (!out.empty()) out += ", ";
    out += name + "=" + format_quantity(name, values_[i]);
  }
  return out.empty() ? "nothing" : out;
}

}  // namespace gantry::hub
