#include "bench/e2e/job_yaml.hpp"

#include <charconv>

#include "support/volcano_yaml.hpp"

namespace gantry::bench::e2e {

namespace {
constexpr std::string_view kPrefix = "e2e-";
}  // namespace

std::string job_name(std::uint32_t index) {
  return std::string(kPrefix) + std::to_string(index);
}

std::optional<std::uint32_t> job_index(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = name.substr(kPrefix.size());
  std::uint32_t index = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return index;
}

// About 400 bytes, the size of a small hand-written job.
std::string job_yaml(std::uint32_t index) {
  support::VolcanoJob job;
  job.name = job_name(index);
  job.queue = "default";
  job.command = {"/bin/true"};
  job.requests = "cpu: 500m, memory: 1Gi, nvidia.com/gpu: 1";
  return support::volcano_job_yaml(job);
}

std::string true_job_yaml(const std::string& name) {
  support::VolcanoJob job;
  job.name = name;
  job.image = "none";
  job.command = {"/bin/true"};
  job.requests = "cpu: \"1\", memory: 64Mi";
  return support::volcano_job_yaml(job);
}

}  // namespace gantry::bench::e2e
