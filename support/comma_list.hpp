// "a,b,c" as {"a", "b", "c"}: the lists of hubs gantryctl and the agents take
// (several hubs sharing one store). An empty item stays, so that a caller
// checking each item refuses "a,".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gantry::support {

inline std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    const std::size_t comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace gantry::support
