#include "bench/gpu_sizes.hpp"

#include <map>

#include "sim/itp_trace.hpp"

namespace gantry::bench {

std::vector<SizeCount> builtin_itp_sizes() {
  // 1..64: counted from the ten ITP files. 128..512: the traces stop at 64; the
  // tail goes on at a quarter per doubling (about the 32 -> 64 GPU ratio) so
  // the benchmark also places gangs of 16 to 64 whole nodes.
  return {{1, 57682}, {2, 1483}, {4, 2371}, {8, 7009}, {16, 381},
          {32, 354},  {64, 71},  {128, 18}, {256, 5},  {512, 1}};
}

std::vector<SizeCount> itp_sizes_from(const std::filesystem::path& dir) {
  std::map<std::int64_t, std::int64_t> counts;
  for (int number : sim::find_itp_cluster_numbers(dir))
    for (const auto& job : sim::load_itp_trace(sim::itp_trace_path(dir, number)).jobs)
      ++counts[job.gpus];
  std::vector<SizeCount> histogram;
  for (const auto& [gpus, jobs] : counts) histogram.push_back({gpus, jobs});
  return histogram;
}

GpuSizeSampler::GpuSizeSampler(const std::vector<SizeCount>& histogram) {
  std::vector<double> weights;
  double jobs = 0;
  for (const SizeCount& entry : histogram) {
    sizes_.push_back(entry.gpus);
    weights.push_back(static_cast<double>(entry.jobs));
    jobs += static_cast<double>(entry.jobs);
    mean_ += static_cast<double>(entry.gpus * entry.jobs);
  }
  mean_ = jobs > 0 ? mean_ / jobs : 0;
  pick_ = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
}

}  // namespace gantry::bench
