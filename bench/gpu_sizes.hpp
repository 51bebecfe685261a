// Gang sizes for benchmarks, drawn like the ITP traces: from the real files
// when given, otherwise from a histogram derived from them once (see
// bench/README.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <utility>
#include <vector>

namespace gantry::bench {

struct SizeCount {
  std::int64_t gpus;
  std::int64_t jobs;
};

// Job counts per GPU size over all ten ITP traces (69,351 jobs), with the
// tail extended past the traces' 64 GPUs to 512.
std::vector<SizeCount> builtin_itp_sizes();

// Job counts per GPU size in every clusterNN.csv of `dir`.
std::vector<SizeCount> itp_sizes_from(const std::filesystem::path& dir);

class GpuSizeSampler {
 public:
  explicit GpuSizeSampler(const std::vector<SizeCount>& histogram);
  std::int64_t operator()(std::mt19937_64& random) { return sizes_[pick_(random)]; }
  double mean() const { return mean_; }

 private:
  std::vector<std::int64_t> sizes_;
  std::discrete_distribution<std::size_t> pick_;
  double mean_ = 0;
};

}  // namespace gantry::bench
