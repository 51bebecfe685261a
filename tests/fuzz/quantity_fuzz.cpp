// Kubernetes quantities ("500m", "10Gi", "1e3") from job manifests, queues,
// inventories and Kubernetes objects. parse_quantity_milli either returns a
// non-negative milli-value or throws std::invalid_argument; what it returns
// formats for people without trouble, for every kind of resource.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "hub/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::int64_t milli = 0;
  try {
    milli = gantry::hub::parse_quantity_milli(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (milli < 0) std::abort();
  for (const char* resource : {"cpu", "memory", "nvidia.com/gpu", "pods"}) {
    (void)gantry::hub::format_quantity(resource, milli);
  }
  return 0;
}
