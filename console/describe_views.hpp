// gantryctl describe: one object in detail, as "Key:  value" blocks and tables.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/messages.hpp"

namespace gantry::console {

// Spec summary, placement (policy, epoch, parts, scores), tasks (replicas,
// per-replica requests, status counts), phase, clusters, reason and events. Ages are measured
// against `now_ms`.
std::string render_job_description(const protocol::DescribeReply& reply, std::int64_t now_ms);
std::string render_queue_description(const protocol::QueueInfo& queue);
std::string render_cluster_description(const protocol::ClusterInfo& cluster, std::int64_t now_ms);

// One replica's requests: the sum over the task's containers.
protocol::ResourceList replica_requests(const protocol::TaskSpec& task);
// A job's last lifecycle event as describe shows it: "PodFailed (task worker,
// replica 1, exit code 3)"; "<none>" before any.
std::string format_last_event(const protocol::JobInfo& job);

}  // namespace gantry::console
