// etcd's JSON gateway answers (etcd/response_json, etcd/stream_lines): a
// streamed body cut into lines, each line parsed within the bounds and
// decoded as every message kind the client reads. The input is cut where it
// holds a 0xFF byte, so the fuzzer also explores where chunks end. A bad
// answer throws std::runtime_error (GrpcError included); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "etcd/response_json.hpp"
#include "etcd/stream_lines.hpp"

namespace {

void decode_every_way(std::string_view line) {
  using namespace gantry::etcd;
  const nlohmann::json answer = parse_answer(line, 1 << 20, 16);
  for (const auto& decode :
       {+[](const nlohmann::json& a) { (void)decode_range(a); },
        +[](const nlohmann::json& a) { (void)decode_txn(a); },
        +[](const nlohmann::json& a) { (void)decode_deleted(a); },
        +[](const nlohmann::json& a) { (void)decode_lease_id(a); },
        +[](const nlohmann::json& a) { (void)decode_ttl(a); },
        +[](const nlohmann::json& a) { (void)decode_watch(stream_result(a)); }}) {
    try {
      decode(answer);
    } catch (const std::runtime_error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  gantry::etcd::StreamLines lines(
      [](std::string_view line) {
        try {
          decode_every_way(line);
        } catch (const std::runtime_error&) {
        }
      },
      1 << 20);
  try {
    while (!rest.empty()) {
      const std::size_t cut = rest.find('\xff');
      lines.feed(rest.substr(0, cut));
      if (cut == std::string_view::npos) break;
      rest.remove_prefix(cut + 1);
    }
    lines.finish();
  } catch (const std::runtime_error&) {  // a line past the bound
  }
  return 0;
}
