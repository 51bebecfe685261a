#include "hub/job_request.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "hub/duration.hpp"
#include "hub/field_error.hpp"
#include "hub/time_limit.hpp"
#include "hub/topology.hpp"

namespace gantry::hub {

namespace {

std::vector<std::string> split_clusters(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream stream(list);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto begin = item.find_first_not_of(' ');
    const auto end = item.find_last_not_of(' ');
    if (begin != std::string::npos) out.push_back(item.substr(begin, end - begin + 1));
  }
  return out;
}

std::string trimmed(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

bool read_split(const protocol::JobSpec& spec) {
  const auto split = spec.annotations.find(kSplitAnnotation);
  if (split == spec.annotations.end() || split->second == "never") return false;
  if (split->second == "allowed") return true;
  throw FieldError(std::string("metadata.annotations.") + kSplitAnnotation, split->second,
                   "expected \"allowed\" or \"never\"");
}

std::string deadline_field(std::size_t task_index) {
  return "spec.tasks[" + std::to_string(task_index) + "].template.spec.activeDeadlineSeconds";
}

std::int64_t deadline_ms(const protocol::TaskSpec& task, std::size_t index) {
  if (task.active_deadline_seconds < 0 || task.active_deadline_seconds > kMaxTimeLimitMs / 1000)
    throw FieldError(
        deadline_field(index), std::to_string(task.active_deadline_seconds),
        std::string("must be a positive whole number of seconds, at most ") + kMaxTimeLimitText);
  return task.active_deadline_seconds * 1000;
}

// gantry.io/time-limit, else the longest of the tasks' activeDeadlineSeconds
// when every task gives one (the gang runs until its last task ends; `field`
// names that task's), else -1: the queue's default. "0s" asks for none, as
// Slurm's --time=0.
std::int64_t read_time_limit(const protocol::JobSpec& spec, std::string& field) {
  if (const auto limit = spec.annotations.find(kTimeLimitAnnotation);
      limit != spec.annotations.end()) {
    const std::string field = std::string("metadata.annotations.") + kTimeLimitAnnotation;
    std::int64_t ms = 0;
    try {
      ms = parse_duration_ms(limit->second);
    } catch (const std::invalid_argument& e) {
      throw FieldError(field, limit->second, e.what());
    }
    if (ms > kMaxTimeLimitMs)
      throw FieldError(field, limit->second, std::string("must be at most ") + kMaxTimeLimitText);
    return ms;
  }
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < spec.tasks.size(); ++i) {
    const std::int64_t task_ms = deadline_ms(spec.tasks[i], i);
    if (task_ms == 0) return -1;
    if (task_ms > longest) field = deadline_field(i);
    longest = std::max(longest, task_ms);
  }
  return longest;
}

// spec.ttlSecondsAfterFinished in ms; Kubernetes holds it in an int32.
std::int64_t ttl_after_finished_ms(const protocol::JobSpec& spec) {
  const std::int64_t seconds = spec.ttl_seconds_after_finished;
  if (seconds < 0) return -1;
  if (seconds > std::numeric_limits<std::int32_t>::max())
    throw FieldError("spec.ttlSecondsAfterFinished", std::to_string(seconds),
                     "must be at most " + std::to_string(std::numeric_limits<std::int32_t>::max()));
  return seconds * 1000;
}

// spec.tasks[].partitionPolicy onto the task's shape. A policy without a
// networkTopology still asks for each partition in one domain, softly.
void read_partitions(const protocol::TaskSpec& task, TaskShape& shape) {
  const protocol::PartitionPolicy& policy = task.partition_policy;
  if (policy.partition_size < 1) return;
  shape.partition_size = policy.partition_size;
  shape.min_partitions = policy.min_partitions;
  shape.partition_topology = topology_constraint(policy.network_topology.mode,
                                                 policy.network_topology.highest_tier_allowed,
                                                 TopologyConstraint::Mode::kSoft);
}

// With no minAvailable anywhere, minPartitions is what the gang needs to
// start: whole partitions of the tasks that give it, every replica of others.
std::int32_t partition_minimum(const GangShape& gang) {
  std::int32_t minimum = 0;
  bool any = false;
  for (const TaskShape& task : gang.tasks) {
    any = any || task.min_partitions > 0;
    minimum += task.min_partitions > 0 ? task.min_partitions * task.partition_size : task.replicas;
  }
  return any ? minimum : 0;
}

}  // namespace

Labels parse_match_labels(const std::string& text, const std::string& field) {
  Labels labels;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const std::string pair = trimmed(item);
    const auto equals = pair.find('=');
    const std::string key = equals == std::string::npos ? "" : trimmed(pair.substr(0, equals));
    const std::string value = equals == std::string::npos ? "" : trimmed(pair.substr(equals + 1));
    if (key.empty() || value.find_first_of("=!() ") != std::string::npos ||
        key.find_first_of("!() ") != std::string::npos)
      throw FieldError(field, text,
                       "expected key=value[,key=value...] (match labels), got \"" + pair + "\"");
    if (!labels.emplace(key, value).second)
      throw FieldError(field, text, "label \"" + key + "\" is given twice");
  }
  if (labels.empty())
    throw FieldError(field, text, "expected key=value[,key=value...] (match labels)");
  return labels;
}

ResourceVector replica_request(const protocol::TaskSpec& task, const std::string& field) {
  ResourceVector total;
  for (std::size_t c = 0; c < task.containers.size(); ++c) {
    try {
      total += ResourceVector::from_list(task.containers[c].requests);
    } catch (const std::length_error& e) {
      throw FieldError(field + ".containers[" + std::to_string(c) + "].requests", "", e.what());
    }
  }
  return total;
}

GangShape resolve_gang(const protocol::JobSpec& spec) {
  if (spec.tasks.empty()) throw FieldError("spec.tasks", "", "a job needs at least one task");
  GangShape gang;
  for (std::size_t i = 0; i < spec.tasks.size(); ++i) {
    const protocol::TaskSpec& task = spec.tasks[i];
    if (task.replicas < 1)
      throw FieldError("spec.tasks[" + std::to_string(i) + "].replicas",
                       std::to_string(task.replicas), "must be at least 1");
    gang.tasks.push_back(
        TaskShape{task.name, task.replicas,
                  replica_request(task, "spec.tasks[" + std::to_string(i) + "].template.spec"),
                  task.node_selector, task.tolerations});
    read_partitions(task, gang.tasks.back());
  }
  gang.topology =
      topology_constraint(spec.network_topology.mode, spec.network_topology.highest_tier_allowed,
                          TopologyConstraint::Mode::kNone);
  const std::int32_t total = gang.total_replicas();
  if (spec.min_available < 0 || spec.min_available > total)
    throw FieldError("spec.minAvailable", std::to_string(spec.min_available),
                     "must be between 1 and the job's " + std::to_string(total) + " replicas");
  const std::int32_t by_partitions = partition_minimum(gang);
  gang.min_available = spec.min_available != 0 ? spec.min_available
                       : by_partitions != 0    ? by_partitions
                                               : total;
  return gang;
}

JobRequest make_job_request(std::shared_ptr<const protocol::JobSpec> spec) {
  JobRequest request;
  request.name = spec->name;
  request.queue = spec->queue.empty() ? "default" : spec->queue;
  request.priority = spec->priority;
  request.gang = resolve_gang(*spec);
  auto sla = spec->annotations.find(kSlaWaitingTimeAnnotation);
  if (sla != spec->annotations.end()) {
    try {
      request.sla_waiting_ms = parse_duration_ms(sla->second);
    } catch (const std::invalid_argument& e) {
      throw FieldError(std::string("metadata.annotations.") + kSlaWaitingTimeAnnotation,
                       sla->second, e.what());
    }
  }
  auto pinned = spec->annotations.find(kClustersAnnotation);
  if (pinned != spec->annotations.end()) request.allowed_clusters = split_clusters(pinned->second);
  auto selector = spec->annotations.find(kClusterSelectorAnnotation);
  if (selector != spec->annotations.end())
    request.cluster_selector = parse_match_labels(
        selector->second, std::string("metadata.annotations.") + kClusterSelectorAnnotation);
  request.split_allowed = read_split(*spec);
  request.time_limit_ms = read_time_limit(*spec, request.time_limit_field);
  request.generate_name = spec->generate_name;
  request.ttl_after_finished_ms = ttl_after_finished_ms(*spec);
  request.policies = std::make_shared<const JobPolicies>(*spec);
  request.spec = std::move(spec);
  return request;
}

}  // namespace gantry::hub
