// A Volcano Queue document as `gantryctl apply -f` sends it. Bad input may
// throw (hub::FieldError or another std::exception, answered with its
// message); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "config/volcano_queue.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  try {
    (void)gantry::config::parse_volcano_queue(yaml);
  } catch (const std::exception&) {
  }
  return 0;
}
