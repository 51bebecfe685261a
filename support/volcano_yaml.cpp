#include "support/volcano_yaml.hpp"

namespace gantry::support {

namespace {

// ["a", "b"]: the command's words as a YAML flow sequence.
std::string flow_sequence(const std::vector<std::string>& words) {
  std::string out = "[";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ", ";
    out += "\"" + words[i] + "\"";
  }
  return out + "]";
}

}  // namespace

std::string volcano_job_yaml(const VolcanoJob& job) {
  std::string yaml = "apiVersion: batch.volcano.sh/v1alpha1\n";
  yaml += "kind: Job\n";
  yaml += "metadata:\n";
  yaml += "  name: " + job.name + "\n";
  yaml += "spec:\n";
  if (!job.queue.empty()) yaml += "  queue: " + job.queue + "\n";
  if (job.min_available) yaml += "  minAvailable: " + std::to_string(*job.min_available) + "\n";
  yaml += "  tasks:\n";
  yaml += "    - name: " + job.task + "\n";
  yaml += "      replicas: " + std::to_string(job.replicas) + "\n";
  yaml += "      template:\n";
  yaml += "        spec:\n";
  yaml += "          containers:\n";
  yaml += "            - name: main\n";
  yaml += "              image: " + job.image + "\n";
  if (!job.command.empty()) yaml += "              command: " + flow_sequence(job.command) + "\n";
  yaml += "              resources:\n";
  yaml += "                requests: {" + job.requests + "}\n";
  return yaml;
}

}  // namespace gantry::support
