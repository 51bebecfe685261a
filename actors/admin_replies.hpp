// Answers to gantryctl's read-only requests (get / describe), built from core
// state. Pure: the scheduler actor calls these with what it owns.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "actors/core_views.hpp"
#include "actors/job_events.hpp"
#include "actors/job_store.hpp"
#include "hub/reconciler.hpp"
#include "hub/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// Cluster name -> when its agent was last heard from (the core does not track it).
using LastSeen = std::map<std::string, hub::TimeMs>;

// `now` scores the clusters of pending jobs (core_views.hpp, job_info), unless
// `pending_scores` omits them.
protocol::ListReply list_reply(const hub::SchedulerCore& core, const protocol::ListRequest& request,
                               const LastSeen& last_seen, hub::TimeMs now,
                               PendingScores pending_scores = PendingScores::kScored);

// get events: the recent events of the request's job (every job's when
// none), at or after its since_ms.
protocol::ListReply events_reply(const JobEvents& events, const protocol::ListRequest& request);

// logs: the cluster that runs (or ran) replica `request.replica` of
// `request.task` of `job` (its row and spec, live or as the store kept them),
// the task defaulted to the job's first. "" once `cluster` is set, else why
// no cluster has that replica.
std::string replica_cluster(const protocol::JobInfo& job, const protocol::JobSpec& spec,
                            protocol::LogsRequest& request, std::string& cluster);

protocol::DescribeReply describe_reply(const hub::SchedulerCore& core, const JobEvents& events,
                                       const protocol::DescribeRequest& request,
                                       const LastSeen& last_seen, hub::TimeMs now);

// What the store keeps of an ended job (row `row`): what describe shows now,
// so that get jobs and describe job show it the same once the core has
// released it, and after a restart.
FinishedJob finished_record(const hub::SchedulerCore& core, const JobEvents& events,
                            const LastSeen& last_seen, const hub::JobEnd& end, std::int64_t row,
                            hub::TimeMs now);

// Said with every get and describe: what waits on an operator. `store_degraded`:
// why the store keeps writes in memory ("" when it does not).
std::vector<std::string> operator_warnings(const std::string& store_degraded,
                                           const hub::HeldRuns& held);

}  // namespace gantry::actors
