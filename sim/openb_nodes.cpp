#include "sim/openb_nodes.hpp"

#include "sim/csv_reader.hpp"

namespace gantry::sim {
namespace {

enum Column : std::size_t { kName, kCpuMilli, kMemoryMib, kGpus, kModel };
// Bounds that keep milli-unit arithmetic (memory in milli-bytes) far from overflow.
constexpr std::int64_t kMaxCpuMilli = std::int64_t{1} << 40;
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 30;
constexpr std::int64_t kMaxGpus = 1024;

}  // namespace

std::vector<OpenbNode> load_openb_nodes(const std::filesystem::path& file) {
  CsvReader reader(file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  std::vector<OpenbNode> nodes;
  while (reader.next_row()) {
    if (reader.field(kName).empty()) throw reader.error(kName, "must not be empty");
    nodes.push_back(
        OpenbNode{std::string(reader.field(kName)), reader.integer(kCpuMilli, 0, kMaxCpuMilli),
                  reader.integer(kMemoryMib, 0, kMaxMemoryMib), reader.integer(kGpus, 0, kMaxGpus),
                  std::string(reader.field(kModel))});
  }
  return nodes;
}

}  // namespace gantry::sim
