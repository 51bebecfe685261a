// How a SchedulerCore decides: the policies and limits of every pass. One
// struct, filled once by each program that drives the core (the hub's command
// line, the simulator's, the benchmarks') and handed through whole.
#pragma once

#include <cstdint>

#include "hub/job.hpp"
#include "hub/job_lifecycle.hpp"
#include "hub/placement_policy.hpp"
#include "hub/queue_spec.hpp"
#include "hub/runtime_estimate.hpp"
#include "hub/topology.hpp"

namespace gantry::hub {

struct SchedulerOptions {
  QueueStrategy default_strategy = QueueStrategy::kBestEffortFifo;
  bool reclaim = true;  // evict borrowers for queues below their deserved share
  // Reclaim spares a gang that has run longer than this (0: none is spared),
  // unless it takes back a guarantee.
  // The older a run, the more work its eviction throws away, and a training
  // job without checkpoints starts over: evicting day-old runs is what made
  // fair share's tail weeks long. A queue below its share still gets it back
  // from younger runs and from older ones as they end.
  TimeMs reclaim_spares_after_ms = 3'600'000;
  // Preemption and reclaim (a guarantee's included) spare a run committed
  // less than this ago (0: none is spared). Each eviction of a fresh start
  // throws away its pods' creation: in front of Karmada a release taken
  // back within a second created and deleted the member's workload and pods.
  TimeMs min_runtime_ms = 0;
  bool preemption = true;  // evict lower-priority jobs of the same queue
  // Dispatch ids start here; a hub puts its epoch in the high bits so an id
  // never names two dispatches across hub restarts.
  DispatchId first_dispatch_id = 1;
  // Eviction searches per pass, in queue order: each may look at every
  // running gang, so they are bounded to keep a pass O(pending + running).
  std::uint32_t eviction_searches_per_pass = 16;
  // Which clusters a job may use, in which order, on which nodes, unless its
  // queue names another (QueueSpec::placement).
  PlacementPolicy placement;
  // A cluster that refuses a job waits backoff_base_ms before it is tried
  // again for that job, doubling with each refusal up to backoff_max_ms.
  TimeMs backoff_base_ms = 1'000;
  TimeMs backoff_max_ms = 300'000;
  // A split gang has at most this many parts.
  std::uint32_t max_split_parts = 8;
  // Backfill (hub/backfill.cpp): the first `reservations` jobs of the queue
  // order that cannot start get a planned start and nodes from running jobs'
  // time limits, and so does every job past its SLA; others start ahead of
  // them only where that cannot delay them. 1 is EASY backfill, more is
  // conservative backfill; 0 turns planning off for the queue order (plain
  // first fit; SLA jobs then get whole-node holds as before).
  std::uint32_t reservations = 1;
  // Plans from time limits (Slurm's rule), or from the runtimes each queue's
  // ended runs show against their limits (EASY++): users' limits are loose,
  // and a plan made from them waits for nodes that free much earlier. Either
  // way only a job whose *limit* ends by a planned start may use what that
  // reservation holds.
  PlannedRuntimes planned_runtimes = PlannedRuntimes::kLimits;
  // Leave a queue as soon as every shape class of jobs left in it is known
  // not to start in this pass (hub/pending_shapes.hpp). Off: every pending
  // job is visited, as tests comparing the two do.
  bool skip_failing_shapes = true;
  // An eviction search that only reclaims toward deserved shares walks only
  // the runs of queues over theirs (hub/over_share.cpp). Off: it walks every
  // run of every cluster, as tests comparing the two do.
  bool walk_over_share_only = true;
  // Which node label names each network-topology tier (hub/topology.hpp).
  TopologyTiers topology_tiers;
  // A job restarted by a lifecycle policy is not placed again before this
  // wait, doubling per retry up to kMaxRestartBackoffMs (hub/job_lifecycle.hpp);
  // a policy's own timeout replaces it.
  TimeMs restart_backoff_ms = kDefaultRestartBackoffMs;
  // An elastic growth its agent has not answered by then is released (an
  // agent that does not know Resize never answers).
  TimeMs resize_answer_timeout_ms = 30'000;
};

}  // namespace gantry::hub
