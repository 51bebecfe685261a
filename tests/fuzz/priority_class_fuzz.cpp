// A document given to `gantryctl apply -f`: its kind (config::document_kind,
// how apply dispatches), and a PriorityClass parsed and applied to a registry
// as the hub does. Bad input may throw a std::exception; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "config/priority_class.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  try {
    (void)gantry::config::document_kind(yaml);
  } catch (const std::exception&) {
  }
  try {
    gantry::config::PriorityClassRegistry registry;
    const gantry::config::PriorityClass parsed = gantry::config::parse_priority_class(yaml);
    registry.apply(parsed);
    (void)registry.resolve(parsed.name);
    (void)registry.values();
  } catch (const std::exception&) {
  }
  return 0;
}
