// What the core's decisions become for the other actors: a pass's (the stops
// of evicted runs, the dispatch records the store keeps, the Prepares of new
// dispatches and the Resizes of elastic ones) and the reconciler's (Cancels,
// Aborts, Commits, log lines). Pure: they read the core (and add each job's
// event); the scheduler actor sends what they return.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "actors/actor_messages.hpp"
#include "actors/job_events.hpp"
#include "hub/reconciler.hpp"
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

// The Cancels and Aborts of the reconciler's outbox, moved out of it.
std::vector<StopOrder> stop_orders(const hub::SchedulerCore& core, hub::Outbox& out);

// The records (to be stored first) and the Commit frames of the committed
// dispatches that the core still holds.
struct CommitFrames {
  std::vector<DispatchRecord> records;
  std::vector<PartFrame> frames;
};
CommitFrames commit_frames(const hub::SchedulerCore& core,
                           const std::vector<hub::DispatchId>& commits,
                           const std::vector<std::int64_t>& store_rows);

// The core's log line, at its level.
void log_line(const hub::LogLine& line);

// The store's record of a dispatch: its clusters, whether it is committed,
// where its gang meets.
DispatchRecord dispatch_record(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                               std::int64_t row);

}  // namespace gantry::actors
