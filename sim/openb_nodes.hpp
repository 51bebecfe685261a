// The Alibaba openb GPU node list (sn,cpu_milli,memory_mib,gpu,model). Parsed
// here, not through config/, so the simulator depends on the core only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gantry::sim {

struct OpenbNode {
  std::string name;  // sn
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpus = 0;
  std::string model;
};

// Throws CsvError naming the file, line and column on a bad header or field.
std::vector<OpenbNode> load_openb_nodes(const std::filesystem::path& file);

}  // namespace gantry::sim
