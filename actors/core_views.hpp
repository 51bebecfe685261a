// Translation between the scheduling core's types and the wire structs: what
// gantryctl is shown and what an agent is sent (what an agent's report means
// to the core is hub::Reconciler's). Pure functions of core state.
#pragma once

#include <string_view>
#include <vector>

#include "hub/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// The only queue until queues can be applied (FIFO).
inline constexpr std::string_view kDefaultQueue = "default";

// Whether a pending job's clusters are scored. gantryctl's answers score
// them; the web view's overview, asked once a second while a page is open,
// does not: scoring every pending job on every cluster is work on the
// scheduler's thread, and scores that move with `now` would make every
// overview a change (docs/web.md).
enum class PendingScores { kScored, kOmitted };

// `now` scores the clusters of a pending job (what it would be placed by now).
protocol::JobInfo job_info(const hub::SchedulerCore& core, hub::JobId id, hub::TimeMs now,
                           PendingScores pending_scores = PendingScores::kScored);
// `last_seen_ms` comes from the agent sessions, which the core does not track.
protocol::ClusterInfo cluster_info(const hub::SchedulerCore& core, hub::ClusterIndex index,
                                   hub::TimeMs last_seen_ms);
protocol::QueueInfo queue_info(const hub::SchedulerCore& core, hub::QueueIndex index);
// False for the implicit root queue and deleted queues.
bool is_listed_queue(const hub::SchedulerCore& core, hub::QueueIndex index);
// The jobs of each queue (by hub::QueueIndex) the core holds, by where they
// stand: one sweep over the jobs.
struct QueueJobCounts {
  int pending = 0;
  int dispatched = 0;
  int running = 0;  // running, restarting or stopping: holding their parts
};
std::vector<QueueJobCounts> job_counts_by_queue(const hub::SchedulerCore& core);
// "3 pending, 1 dispatched, 2 running": what QueueInfo has no field for.
std::string queue_job_counts(const hub::SchedulerCore& core, hub::QueueIndex index);

// The Prepare the agent of `dispatch.parts[part]` receives: the job's spec,
// the part's replicas per task and the nodes the hub chose for them, and
// where the part's replicas stand in the whole gang (ranks, task indices),
// and the job's time limit.
protocol::Prepare prepare_message(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                                  std::size_t part);
// The Commit of `dispatch.parts[part]`: start, meeting at the dispatch's rendezvous.
protocol::Commit commit_message(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                                std::size_t part);

}  // namespace gantry::actors
