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

// `value` / `unit`, rounded half up to one decimal, ".0" dropped.
std::string one_decimal(std::uint64_t value, std::uint64_t unit) {
  const std::uint64_t tenths = (value / unit) * 10 + ((value % unit) * 10 + unit / 2) / unit;
  std::string text = std::to_string(tenths / 10);
  if (tenths % 10 != 0) text += "." + std::to_string(tenths % 10);
  return text;
}

std::string readable_bytes(std::uint64_t milli) {
  static constexpr const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  const std::uint64_t bytes = milli / 1000 + (milli % 1000 >= 500 ? 1 : 0);
  std::uint64_t unit = 1;
  std::size_t index = 0;
  while (index + 1 < std::size(kUnits) && bytes / unit >= 1024) {
    unit *= 1024;
    ++index;
  }
  return one_decimal(bytes, unit) + kUnits[index];
}

// Digits before the unit of hub::format_quantity's text ("2304Gi" -> 4).
std::size_t leading_digits(const std::string& exact) {
  std::size_t digits = 0;
  while (digits < exact.size() && exact[digits] >= '0' && exact[digits] <= '9') ++digits;
  return digits;
}

}  // namespace

// The exact quantity (hub::format_quantity, as the spec was written) while it
// is short, so a capacity reads the same in every view ("2304Gi", "1500m");
// rounded only where the exact form is noise (a water-filled share).
std::string format_quantity_readable(std::string_view resource, std::int64_t milli) {
  if (milli < 0) return "-" + format_quantity_readable(resource, -milli);
  const auto magnitude = static_cast<std::uint64_t>(milli);
  const std::string exact = hub::format_quantity(resource, milli);
  const bool bytes = resource == "memory" || resource == "ephemeral-storage";
  // A GPU count reads whole or with one decimal, never in millis ("3200m").
  const bool fractional_count = !bytes && resource != "cpu" && magnitude % 1000 != 0;
  if (!fractional_count && leading_digits(exact) <= 4) return exact;
  if (bytes) return readable_bytes(magnitude);
  return one_decimal(magnitude, 1000);
}

std::string format_resources_readable(const protocol::ResourceList& resources,
                                      std::string_view separator) {
  if (resources.empty()) return "<none>";
  std::string text;
  for (const auto& [name, milli] : resources) {
    if (!text.empty()) text += separator;
    text += name + "=" + format_quantity_readable(name, milli);
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
  return format_quantity_readable(resource, value_or_zero(allocated, resource)) + "/" +
         format_quantity_readable(resource, value_or_zero(capacity, resource));
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
