// A member cluster's node inventory, in both formats the agents read: YAML
// (examples/inventories/) and the openb node CSV. Each input goes to both
// parsers. Bad input may throw a std::exception; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "config/inventory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gantry::config::parse_inventory_yaml(text);
  } catch (const std::exception&) {
  }
  try {
    (void)gantry::config::parse_openb_csv(text);
  } catch (const std::exception&) {
  }
  return 0;
}
