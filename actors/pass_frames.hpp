// What a scheduling pass's decisions become for the other actors: the stops
// of evicted runs, the dispatch records the store keeps, the Prepares of new
// dispatches and the Resizes of elastic ones. Pure: it reads the core and
// adds each job's event; the scheduler actor sends the result.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "actors/actor_messages.hpp"
#include "actors/job_events.hpp"
#include "hub/scheduler.hpp"

namespace gantry::actors {

struct PassFrames {
  std::vector<StopOrder> evictions;
  std::vector<DispatchRecord> records;
  std::vector<PartFrame> prepares;
  std::vector<std::pair<std::string, protocol::Resize>> resizes;  // by cluster
};

// `store_rows`: each job's store row by JobId (0: not stored).
PassFrames pass_frames(const hub::SchedulerCore& core, std::span<const hub::Decision> decisions,
                       const std::vector<std::int64_t>& store_rows, JobEvents& events,
                       hub::TimeMs at);

// The store's record of a dispatch: its clusters, whether it is committed,
// where its gang meets.
DispatchRecord dispatch_record(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                               std::int64_t row);

}  // namespace gantry::actors
