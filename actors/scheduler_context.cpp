#include "actors/scheduler_context.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "actors/core_views.hpp"
#include "actors/decision_frames.hpp"

namespace gantry::actors {

SchedulerContext::SchedulerContext(caf::event_based_actor* self, OutboundSink& sink, Clock clock,
                                   caf::actor dispatcher, caf::actor store,
                                   const SchedulerSettings& settings)
    : self(self),
      dispatcher(std::move(dispatcher)),
      store(std::move(store)),
      core(settings.core),
      reconciler(core),
      objects(core, settings.keep_finished.count(), settings.deleted_stop_grace.count()),
      sink_(sink),
      clock_(std::move(clock)) {
  core.ensure_queue(kDefaultQueue);  // listed even before its first job
  // Known before their agents say Hello, so nothing is placed there meanwhile.
  for (const std::string& cluster : settings.cordoned)
    core.set_cordoned(core.add_cluster(cluster), true);
  if (settings.open_history) {
    ended_ = settings.open_history();
    core.set_names_held_elsewhere([this](std::string_view name) { return holds_ended(name); });
  }
  if (settings.state_first_dispatch_id != 0)
    reconciler.hold_runs_of_other_states(settings.state_first_dispatch_id,
                                         settings.later_generations_from);
}

// The store commits in order: a barrier behind the change's writes. A change
// the store cannot take is live but not yet durable: it says so, and the
// store retries it.
void SchedulerContext::reply_once_stored(const ReplyTo& to, protocol::AdminResult result) {
  if (!result.ok) {
    reply(to, result);
    return;
  }
  self->request(store, caf::infinite, record_atom_v)
      .then(
          [this, to, result](const std::string& error) mutable {
            if (!error.empty()) {
              result.ok = false;
              result.error = result.message + " in memory, but not stored yet (" + error +
                             "); the hub retries, and says so when the store recovers";
            }
            reply(to, result);
          },
          [this, to](const caf::error& error) {
            reply(to, protocol::AdminResult{false, "", self->system().render(error)});
          });
}

void SchedulerContext::request_pass() {
  if (pass_queued || reconciler.recovering()) return;
  pass_queued = true;
  self->send(self, schedule_atom_v);
}

void SchedulerContext::carry_out(hub::Outbox& out) {
  for (const hub::LogLine& line : out.log) log_line(line);
  for (hub::JobEvent& event : out.events)
    objects.events().add(event.job, event.at, std::move(event.text));
  for (const hub::JobEnd& end : out.ends) record_end(end);
  if (!out.cancels.empty() || !out.aborts.empty()) self->send(dispatcher, stop_orders(core, out));
  send_commits(out.commits);
  if (out.pass_wanted) request_pass();
}

// The end is stored; once it is committed the core forgets the job: get jobs
// and describe job read it from the store, and memory stays bounded however
// many jobs ended (the store expires them).
void SchedulerContext::arm_watch() {
  if (watch_armed_ || watch.empty()) return;
  watch_armed_ = true;
  self->delayed_send(self, std::chrono::milliseconds(ListWatch::kTickMs), watch_atom_v);
}

void SchedulerContext::push_watched_changes() {
  watch_armed_ = false;
  for (const ListWatch::Push& change : watch.changes(core, objects.events(), last_seen, now()))
    push(change.to, change.reply);
  arm_watch();
}

void SchedulerContext::record_end(const hub::JobEnd& end) {
  if (watch.wants_jobs()) watch.job_ended(job_info(core, end.job, now()));
  if (const std::int64_t row = objects.row(end.job); row != 0) {
    self->request(store, caf::infinite, finish_atom_v,
                  finished_record(core, objects.events(), last_seen, end, row, now()))
        .then([this, id = end.job, row](bool) { objects.end_stored(id, row); },
              [](const caf::error&) {});  // the store is gone: the hub stops
  }
  ForgottenRows forgotten;
  objects.ended(end, now(), forgotten);
  forget(forgotten);
}

// Every part admitted: the commit (and the rendezvous) is recorded, then each
// part gets its Commit.
void SchedulerContext::send_commits(const std::vector<hub::DispatchId>& commits) {
  if (commits.empty()) return;
  auto [records, frames] = commit_frames(core, commits, objects.rows());
  record_then_send(std::move(records), std::move(frames));
}

// The Commits leave only once the store has committed the records: a hub
// that restarts in between knows every part it committed, so it neither
// loses nor doubles one.
void SchedulerContext::record_then_send(std::vector<DispatchRecord> records,
                                        std::vector<PartFrame> frames) {
  if (frames.empty()) return;
  auto pending = std::make_shared<std::vector<PartFrame>>(std::move(frames));
  // Ahead of queued submissions in the store's mailbox: frames wait on it.
  self->request<caf::message_priority::high>(store, caf::infinite, record_atom_v,
                                             std::move(records))
      .then(
          [this, pending](const std::string& error) { recorded(*pending, error); },
          [this, pending](caf::error& error) { recorded(*pending, self->system().render(error)); });
}

// Frames of dispatches that moved on meanwhile (cancelled, evicted, rejected)
// are dropped: nothing of them may start.
void SchedulerContext::recorded(std::vector<PartFrame>& frames, const std::string& error) {
  if (!error.empty()) {
    give_up(frames, error);
    return;
  }
  std::erase_if(frames, [this](const PartFrame& frame) {
    return core.find_dispatch(frame.dispatch_id) == nullptr;
  });
  if (!frames.empty()) self->send<caf::message_priority::high>(dispatcher, std::move(frames));
}

// Not recorded, so not sent: each dispatch is refused as if its first part
// had been (its job goes back to its queue).
void SchedulerContext::give_up(const std::vector<PartFrame>& frames, const std::string& error) {
  spdlog::error("cannot record {} frame(s) in the job store, not sent: {}", frames.size(), error);
  for (const PartFrame& frame : frames) {
    const hub::Dispatch* dispatch = core.find_dispatch(frame.dispatch_id);
    if (dispatch == nullptr) continue;  // refused already (its first frame) or moved on
    reconcile(
        &hub::Reconciler::on_reject, core.cluster(dispatch->parts.front().cluster).name(),
        protocol::Reject{frame.dispatch_id, frame.job, "the hub could not record it: " + error, 0});
  }
}

// A restart must not bring forgotten jobs back. An end may have started a
// ttl: one timer for the earliest expiry, kept ordered by the retention, so
// no job is looked at before its time.
void SchedulerContext::forget(const ForgottenRows& rows) {
  for (std::int64_t row : rows) self->send(store, forget_atom_v, row);
  const hub::TimeMs at = now();
  if (auto delay = expiry_wake_.arm(objects.next_expiry(), at, hub::kNever))
    self->delayed_send(self, *delay, tick_atom_v);
}

void SchedulerContext::expire_jobs() {
  ForgottenRows forgotten;
  objects.expire(now(), forgotten);
  forget(forgotten);
}

bool SchedulerContext::holds_ended(std::string_view name) {
  if (!ended_) return false;
  try {
    return ended_->holds_ended(name);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return false;
  }
}

std::string SchedulerContext::ended_phase(const std::string& name) {
  if (!ended_ || core.find_job(name)) return "";
  try {
    const std::optional<protocol::DescribeReply> ended = ended_->describe(name);
    return ended ? ended->job.phase : "";
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return "";
  }
}

}  // namespace gantry::actors
