// describe job's Placement section: the policy, the epoch, where each part of
// the gang runs and how the last decision scored the clusters.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// "worker x4, master x1": the part's replicas per task, in the order the spec
// lists its tasks (`tasks`); a task the spec does not list follows, by name.
std::string format_part(const protocol::JobPart& part,
                        const std::vector<protocol::TaskSpec>& tasks);

// "east 40, west -100", in the order given.
std::string format_scores(const std::vector<protocol::ClusterScoreInfo>& scores);

// "Placement:\n  Policy:  binpack\n  Epoch:   2\n  Split:   across 2 clusters\n
//   Parts:   east: ...\n           west: ...\n  Scores:  east 40, west -100\n";
// Split only for a job in several parts, Parts and Scores only when listed.
std::string render_placement(const protocol::JobInfo& job, const protocol::JobSpec& spec);

}  // namespace gantry::console
