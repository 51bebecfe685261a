#include "bench/e2e/job_yaml.hpp"

#include <charconv>

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
  return "apiVersion: batch.volcano.sh/v1alpha1\n"
         "kind: Job\n"
         "metadata:\n"
         "  name: " +
         job_name(index) +
         "\n"
         "spec:\n"
         "  queue: default\n"
         "  tasks:\n"
         "    - name: main\n"
         "      replicas: 1\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "            - name: main\n"
         "              image: busybox\n"
         "              command: [\"/bin/true\"]\n"
         "              resources:\n"
         "                requests: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: 1}\n";
}

std::string true_job_yaml(const std::string& name) {
  return "apiVersion: batch.volcano.sh/v1alpha1\n"
         "kind: Job\n"
         "metadata:\n"
         "  name: " +
         name +
         "\n"
         "spec:\n"
         "  tasks:\n"
         "    - name: main\n"
         "      replicas: 1\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "            - name: main\n"
         "              image: none\n"
         "              command: [\"/bin/true\"]\n"
         "              resources:\n"
         "                requests: {cpu: \"1\", memory: 64Mi}\n";
}

}  // namespace gantry::bench::e2e
