// A Kubernetes watch stream's body (kube/event_lines): JSON events, one per
// line, arriving in arbitrary pieces. The input is cut where it holds a 0xFF
// byte (never in UTF-8 JSON), so the fuzzer also explores where chunks end.
// A line that is not JSON makes feed() / finish() return false; nothing may
// crash, and every delivered event is an object.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "kube/event_lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::size_t delivered = 0;
  const gantry::kube::EventLines::Handler count = [&](const nlohmann::json& event) {
    if (!event.is_object()) __builtin_trap();
    ++delivered;
  };
  gantry::kube::EventLines lines(count);
  while (!rest.empty()) {
    const std::size_t cut = rest.find('\xff');
    if (!lines.feed(rest.substr(0, cut))) return 0;
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 1);
  }
  if (!lines.finish()) return 0;
  if (delivered != lines.events()) __builtin_trap();
  return 0;
}
