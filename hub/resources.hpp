// Resource names and fixed-width resource vectors: the arithmetic every
// scheduling decision is made of. A vector is a flat array indexed by an
// interned ResourceId, so adding, subtracting and comparing never allocate.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace gantry::hub {

using ResourceId = std::uint8_t;
inline constexpr std::size_t kMaxResources = 16;

// Well-known resources have fixed ids; others are interned on first use.
inline constexpr ResourceId kCpu = 0;     // milli-cores
inline constexpr ResourceId kMemory = 1;  // milli-bytes (Kubernetes MilliValue)
inline constexpr ResourceId kGpu = 2;     // "nvidia.com/gpu", milli-GPUs
inline constexpr std::string_view kGpuResourceName = "nvidia.com/gpu";
inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";
inline constexpr std::int64_t kMilli = 1000;
inline constexpr ResourceId kNoResource = 0xff;

// Process-wide interning of resource names. Thread-safe; the hot path only
// uses ids, names are looked up at the edges (parsing, reporting).
class ResourceNames {
 public:
  // Returns the id of `name`, interning it. Throws std::length_error when more
  // than kMaxResources distinct names are in use.
  static ResourceId intern(std::string_view name);
  // Like intern(), but false instead of throwing when the table is full.
  static bool try_intern(std::string_view name, ResourceId& id);
  // Returns false if `name` was never interned.
  static bool find(std::string_view name, ResourceId& id);
  static std::string name(ResourceId id);
  static std::size_t count();
};

// GPUs of one product (the node label nvidia.com/gpu.product) are a resource
// of their own, "nvidia.com/gpu/<product>", next to nvidia.com/gpu: a node of
// that product offers both, a job that selects the product asks for both, so
// pools, queue shares and limits count them like any other resource. The name
// cannot clash with a Kubernetes resource name (those have one slash at most).
// False when no more resource names fit; the product is then not accounted
// apart (node selectors still place the job on it).
bool gpu_product_resource(std::string_view product, ResourceId& id);
// True for ids handed out by gpu_product_resource(); lock-free.
bool is_gpu_product(ResourceId id);
std::string gpu_product_resource_name(std::string_view product);

class ResourceVector {
 public:
  ResourceVector() { values_.fill(0); }

  static ResourceVector from_list(const protocol::ResourceList& list);
  protocol::ResourceList to_list() const;  // only non-zero entries

  std::int64_t get(ResourceId id) const { return values_[id]; }
  void set(ResourceId id, std::int64_t milli) { values_[id] = milli; }
  std::int64_t gpus() const { return values_[kGpu] / kMilli; }  // whole GPUs

  ResourceVector& operator+=(const ResourceVector& other) {
    for (std::size_t i = 0; i < kMaxResources; ++i) values_[i] += other.values_[i];
    return *this;
  }
  ResourceVector& operator-=(const ResourceVector& other) {
    for (std::size_t i = 0; i < kMaxResources; ++i) values_[i] -= other.values_[i];
    return *this;
  }
  friend ResourceVector operator+(ResourceVector a, const ResourceVector& b) { return a += b; }
  friend ResourceVector operator-(ResourceVector a, const ResourceVector& b) { return a -= b; }
  ResourceVector operator*(std::int64_t factor) const {
    ResourceVector out = *this;
    for (auto& v : out.values_) v *= factor;
    return out;
  }
  bool operator==(const ResourceVector& other) const = default;

  // True when every component of *this is <= the same component of `limit`.
  bool fits_in(const ResourceVector& limit) const {
    for (std::size_t i = 0; i < kMaxResources; ++i)
      if (values_[i] > limit.values_[i]) return false;
    return true;
  }
  // First resource where *this exceeds `limit`; false when it fits.
  bool first_excess(const ResourceVector& limit, ResourceId& which) const;
  bool is_zero() const {
    for (auto v : values_)
      if (v != 0) return false;
    return true;
  }
  // Component-wise max / min.
  ResourceVector max_with(const ResourceVector& other) const;
  ResourceVector min_with(const ResourceVector& other) const;
  // Human form, e.g. "cpu=4, memory=16Gi, nvidia.com/gpu=8".
  std::string to_string() const;

 private:
  std::array<std::int64_t, kMaxResources> values_;
};

}  // namespace gantry::hub
