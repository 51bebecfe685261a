// One job, cluster or queue as gantryctl get -o json prints it, and as the
// hub's web view serves it (actors/web_json.hpp): one shape for both.
#pragma once

#include "console/json_fields.hpp"
#include "protocol/messages.hpp"

namespace gantry::console {

Json job_json(const protocol::JobInfo& job);
Json cluster_json(const protocol::ClusterInfo& cluster);
Json queue_json(const protocol::QueueInfo& queue);

}  // namespace gantry::console
