// The Microsoft ITP job traces: one CSV per real cluster,
// job_id,submission_time,duration,num_gpu (seconds since the start of the
// collection).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gantry::sim {

struct TraceJob {
  std::string id;
  std::int64_t submit_s = 0;
  std::int64_t duration_s = 0;
  std::int64_t gpus = 1;
};

// One trace file's jobs, in submission order (ties keep file order).
struct Trace {
  std::string cluster_name;  // the file's stem, e.g. "cluster04"
  std::vector<TraceJob> jobs;
};

// Throws CsvError naming the file, line and column on a bad header or field.
Trace load_itp_trace(const std::filesystem::path& file);

// `dir`/clusterNN.csv for cluster number `number` (NN zero-padded to 2).
std::filesystem::path itp_trace_path(const std::filesystem::path& dir, int number);

// The cluster numbers of every clusterNN.csv in `dir`, ascending.
std::vector<int> find_itp_cluster_numbers(const std::filesystem::path& dir);

}  // namespace gantry::sim
