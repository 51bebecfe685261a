// Volcano Job YAML for the tests and benchmarks that submit jobs: one task of
// identical replicas with one container, written as text so that no YAML
// library is needed.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gantry::support {

struct VolcanoJob {
  std::string name;
  std::string queue;                 // empty: no spec.queue (the hub's default queue)
  std::optional<int> min_available;  // none: no spec.minAvailable (all replicas)
  std::string task = "main";
  int replicas = 1;
  std::string image = "busybox";
  std::vector<std::string> command;  // empty: no command
  // The container's requests as a YAML flow mapping's entries, e.g.
  // `cpu: "1", memory: 1Gi, nvidia.com/gpu: 2`.
  std::string requests;
};

std::string volcano_job_yaml(const VolcanoJob& job);

}  // namespace gantry::support
