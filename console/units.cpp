#include "console/units.hpp"

#include "hub/quantity.hpp"

namespace gantry::console {

std::string milli_to_decimal(std::int64_t milli) {
  // Unsigned magnitude so that INT64_MIN does not overflow on negation.
  const std::uint64_t magnitude =
      milli < 0 ? ~static_cast<std::uint64_t>(milli) + 1 : static_cast<std::uint64_t>(milli);
  std::string text = (milli < 0 ? "-" : "") + std::to_string(magnitude / 1000);
  std::uint64_t fraction = magnitude % 1000;
  if (fraction == 0) return text;
  std::string digits = std::to_string(fraction);
  digits.insert(0, 3 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return text + "." + digits;
}

std::string format_resources(const protocol::ResourceList& resources, std::string_view separator) {
  if (resources.empty()) return "<none>";
  std::string text;
  for (const auto& [name, milli] : resources) {
    if (!text.empty()) text += separator;
    text += name + "=" + hub::format_quantity(name, milli);
  }
  return text;
}

namespace {

std::int64_t value_or_zero(const protocol::ResourceList& resources, std::string_view name) {
  const auto it = resources.find(std::string(name));
  return it == resources.end() ? 0 : it->second;
}

}  // namespace

std::string format_usage(std::string_view resource, const protocol::ResourceList& allocated,
                         const protocol::ResourceList& capacity) {
  return hub::format_quantity(resource, value_or_zero(allocated, resource)) + "/" +
         hub::format_quantity(resource, value_or_zero(capacity, resource));
}

bool is_gpu_resource(std::string_view name) {
  return name == "gpu" || name.ends_with("/gpu");
}

std::int64_t total_gpu_milli(const protocol::ResourceList& resources) {
  std::int64_t total = 0;
  for (const auto& [name, milli] : resources) {
    if (is_gpu_resource(name)) total += milli;
  }
  return total;
}

}  // namespace gantry::console
