// gantryctl get jobs: the table and the JSON array.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// NAME QUEUE PHASE CLUSTERS AGE REASON; AGE is measured against `now_ms`.
std::string render_jobs_table(const std::vector<protocol::JobInfo>& jobs, std::int64_t now_ms);
std::string render_jobs_json(const std::vector<protocol::JobInfo>& jobs);

// Every cluster the job runs or ran on: JobInfo.clusters, then any cluster of
// its parts they miss, so every part of a split job is named.
std::vector<std::string> placed_clusters(const protocol::JobInfo& job);

// "east,west", or "<none>" when the job has not been placed.
std::string join_clusters(const std::vector<std::string>& clusters);

}  // namespace gantry::console
