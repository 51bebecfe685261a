// Spawn functions of the individual hub actors, for hub_actors.cpp. Includes
// CAF: only the actors' own translation units include this file.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/actor_messages.hpp"
#include "actors/hub_actors.hpp"
#include "actors/hub_io_metrics.hpp"
#include "actors/job_history.hpp"
#include "config/priority_class.hpp"

namespace gantry::actors {

struct SchedulerSettings {
  // The core's policies; its first_dispatch_id is above every id an earlier
  // hub on the same state handed out.
  hub::SchedulerOptions core;
  // The first id of the state's first generation: runs agents hold with ids
  // below it (or of a later generation than this hub's) come from before
  // this state was made. They are held, never stopped (0: none held).
  hub::DispatchId state_first_dispatch_id = 0;
  hub::DispatchId later_generations_from = 0;  // the first id of the generation after this hub's
  // After a restart with unfinished jobs: how long agents have to list what
  // they still run before restored jobs are placed again (0: no wait).
  std::chrono::milliseconds recovery_grace{0};
  // Jobs the store brings back (each arrives as a restore, or is dropped):
  // recovery ends only once all of them are back and the grace has passed,
  // so that no run of a job still on its way is released as unknown.
  std::size_t jobs_to_restore = 0;
  // Recovery also waits, this long at most (the lost grace), for the
  // clusters that held committed parts of restored jobs to report.
  std::chrono::milliseconds recovery_limit{120'000};
  // Clusters cordoned before the restart (from the store): cordoned again.
  std::vector<std::string> cordoned;
  // A deleted job whose replicas do not report their stop is forgotten after
  // this anyway (the agents' lost grace).
  std::chrono::milliseconds deleted_stop_grace{120'000};
  // Ended jobs are forgotten this long after their end at the latest.
  std::chrono::milliseconds keep_finished{7LL * 24 * 3'600'000};
  // Reads the ended jobs the store keeps (their names stay taken); empty:
  // none are.
  HistoryOpener open_history;
};
// Owns the one SchedulerCore. Prepares, commits and stops go to `dispatcher`;
// dispatch records, cordons and job ends to `store`.
caf::actor spawn_scheduler(caf::actor_system& system, OutboundSink& sink, Clock clock,
                           caf::actor dispatcher, caf::actor store, SchedulerSettings settings);

// Sends prepares, commits, aborts and cancels to agents; sends an unanswered
// Prepare or Commit again every `resend_interval` and counts it as a Reject
// after `answer_timeout`. Learns the scheduler from a (connect_atom, actor)
// message.
caf::actor spawn_dispatcher(caf::actor_system& system, OutboundSink& sink, Clock clock,
                            std::chrono::milliseconds resend_interval,
                            std::chrono::milliseconds answer_timeout);

// Agent sessions: Hello / Welcome, heartbeats, leases; forwards the rest.
caf::actor spawn_registry(caf::actor_system& system, OutboundSink& sink, Clock clock,
                          const AgentSessionSettings& settings,
                          std::uint64_t hub_epoch, caf::actor scheduler, caf::actor dispatcher);

// Validates submissions, has them written to the store, then hands them to the
// scheduler. Applies, lists and deletes PriorityClasses in `classes` (shared
// by every queue actor).
caf::actor spawn_queue(caf::actor_system& system, OutboundSink& sink, Clock clock,
                       caf::actor scheduler, caf::actor store,
                       std::shared_ptr<config::PriorityClassRegistry> classes);

// Also answers what the core no longer holds: ended jobs for get jobs and
// describe job (to `sink`), and forgets ended jobs past their ttl or
// `keep_finished` (on `clock`).
// `metrics`: its commits are timed there; nullptr: not.
caf::actor spawn_store(caf::actor_system& system, std::shared_ptr<JobStore> store, bool detached,
                       OutboundSink& sink, Clock clock, std::chrono::milliseconds keep_finished,
                       std::shared_ptr<HubIoMetrics> metrics = nullptr);

}  // namespace gantry::actors
