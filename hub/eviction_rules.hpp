// Which running gangs may be evicted for a pending job, and whether the job
// may look for victims at all: the rules of reclaim (from other queues, toward
// its queue's deserved share or guarantee) and preemption (lower priority in
// its own queue), as Volcano's reclaim and preempt actions and Kueue's
// preemptor have them. Pure: they read the queues, the jobs and the pass's
// time, and change nothing. The search for the fewest victims that make a
// job fit is hub/preemption.cpp; shrinking elastic runs, hub/elastic.cpp.
//
// Why evictions cannot loop: a reclaimer's queue stays within its deserved
// share after the job starts, and victims come only from queues above theirs,
// so the victims' queues can never reclaim back from it; preemption needs
// strictly higher priority, which is not symmetric either.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/dispatch.hpp"
#include "hub/job.hpp"
#include "hub/queue_tree.hpp"
#include "hub/resources.hpp"
#include "hub/scheduler_options.hpp"

namespace gantry::hub {

// Whether other queues' runs may be evicted for a job, and which.
enum class Reclaim : std::uint8_t {
  kNo,
  kToDeserved,   // runs of reclaimable queues above their deserved share
  kToGuarantee,  // the job's queue takes back its guarantee: any reclaimable run
};

// Whether a job may search for victims, and how.
struct EvictionSearch {
  bool allowed = false;
  bool preempt = false;  // lower-priority runs of its own queue
  Reclaim reclaim = Reclaim::kNo;
};

// What a pass's eviction rules read (references: cheap to make per call).
struct EvictionRules {
  const SchedulerOptions& options;
  const QueueTree& queues;
  const std::vector<Job>& jobs;
  TimeMs now = 0;
  DispatchId first_of_pass = 0;  // dispatches from this pass are never victims

  // `queue_searched`: the job's queue searched in this pass already (one
  // search per queue per pass, unless it takes back its guarantee);
  // `searches_left`: how many more the pass allows.
  EvictionSearch search_for(const Job& job, bool queue_searched, std::uint32_t searches_left) const;
  // Whether the run may be evicted for the job, with its queue holding
  // `victim_queue_allocated` (less what the same search took already).
  bool may_evict_for(const Job& job, const Dispatch& victim,
                     const ResourceVector& victim_queue_allocated, Reclaim reclaim) const;
  // Committed within SchedulerOptions::min_runtime_ms: spared by every eviction.
  bool within_min_runtime(const Dispatch& dispatch) const;
  // Running past SchedulerOptions::reclaim_spares_after_ms: spared by reclaim
  // toward a deserved share.
  bool spared_by_age(const Job& victim) const;
  // Started after waiting past its SLA: spared by reclaim toward a deserved
  // share (taking it back would start the wait over).
  static bool started_starving(const Job& victim);
};

}  // namespace gantry::hub
