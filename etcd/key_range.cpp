#include "etcd/key_range.hpp"

namespace gantry::etcd {

std::string prefix_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

}  // namespace gantry::etcd
