// Turns a parsed Volcano JobSpec into what the core schedules.
#pragma once

#include <memory>
#include <string>

#include "hub/job.hpp"

namespace gantry::hub {

// Annotation that pins a job to clusters: "gantry.io/clusters: a,b".
inline constexpr const char* kClustersAnnotation = "gantry.io/clusters";
// Annotation that selects clusters by their labels, match-labels syntax:
// "gantry.io/cluster-selector: region=eu,tier=gold".
inline constexpr const char* kClusterSelectorAnnotation = "gantry.io/cluster-selector";
// Annotation that lets a gang no single cluster fits be split across
// clusters: "gantry.io/split: allowed" (or "never", the default).
inline constexpr const char* kSplitAnnotation = "gantry.io/split";
// Volcano's SLA plugin annotation: pending longer than this, nodes are held.
inline constexpr const char* kSlaWaitingTimeAnnotation = "sla-waiting-time";
// The longest time limit a job or a queue may give (100 years of 365 days):
// more is a typo, and a start time plus the limit must fit a millisecond clock.
inline constexpr std::int64_t kMaxTimeLimitMs = 100LL * 365 * 24 * 3'600'000;
inline constexpr const char* kMaxTimeLimitText = "100 years";

// What one replica of `task` asks for: the sum of its containers' requests.
// Throws FieldError under `field` when it names too many distinct resources.
ResourceVector replica_request(const protocol::TaskSpec& task, const std::string& field);

// The gang a job spec asks for, resolved in this one place for the hub's
// placement and the agents' admission: per task its replicas, per-replica
// requests (the sum of its containers'), node selector, tolerations and
// partitions; the job's network-topology constraint; and how many replicas
// must start together: spec.minAvailable, else whole partitions by
// minPartitions, else all. Throws FieldError naming the field when a task has
// no replicas or minAvailable exceeds them.
GangShape resolve_gang(const protocol::JobSpec& spec);

// resolve_gang(), and the job's annotations.
// Its time limit: gantry.io/time-limit, else the longest of its tasks'
// activeDeadlineSeconds when every task gives one, else -1 (the queue's
// default). Throws FieldError naming the field when minAvailable exceeds the
// replicas, a task has no replicas or an annotation is malformed.
JobRequest make_job_request(std::shared_ptr<const protocol::JobSpec> spec);

// "region=eu, tier=gold" -> {region: eu, tier: gold}. Throws FieldError under
// `field` naming the item that is not key=value, or a key given twice.
Labels parse_match_labels(const std::string& text, const std::string& field);

}  // namespace gantry::hub
