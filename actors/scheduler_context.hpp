// What the scheduler actor's two handler sets share (agents and passes:
// scheduler_actor.cpp; operators: scheduler_admin.cpp): the one
// SchedulerCore, what the hub keeps beside it, and the ways out of the actor.
// The ways out keep the hub's order guarantees: a change is answered once
// the store has it, a job's end is recorded before the core forgets it, and
// Commits leave only once their records are committed.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/admin_answer.hpp"
#include "actors/admin_replies.hpp"
#include "actors/job_history.hpp"
#include "actors/job_objects.hpp"
#include "actors/list_watch.hpp"
#include "hub/reconciler.hpp"
#include "hub/scheduler.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

// One timer for the earliest deadline of a kind (a backoff, a job's expiry):
// a new one is set only when none is due by then.
class WakeUp {
 public:
  // The delay of the timer to set for `next`; none when one already fires
  // by then, or `next` is `never`.
  std::optional<std::chrono::milliseconds> arm(hub::TimeMs next, hub::TimeMs now,
                                               hub::TimeMs never) {
    if (next == never || (at_ > now && at_ <= next)) return std::nullopt;
    at_ = next;
    return std::chrono::milliseconds(std::max<hub::TimeMs>(0, next - now));
  }

 private:
  hub::TimeMs at_ = 0;  // when the timer set last fires
};

class SchedulerContext {
 public:
  SchedulerContext(caf::event_based_actor* self, OutboundSink& sink, Clock clock,
                   caf::actor dispatcher, caf::actor store, const SchedulerSettings& settings);

  hub::TimeMs now() const { return clock_(); }

  // ---- gantryctl's answers
  template <class T>
  void reply(const ReplyTo& to, const T& message) {
    if (to.peer.empty()) return;
    sink_.send(admin_answer(to, message));
  }
  // A further answer to a request already answered (get -w, logs): not
  // counted again as an answer.
  template <class T>
  void push(const ReplyTo& to, const T& message) {
    if (to.peer.empty()) return;
    sink_.send(OutboundFrame{Channel::kAdmin, to.peer, protocol::encode(message, to.seq), 0});
  }
  // get -w: the changes are gathered every ListWatch::kTickMs while anyone watches.
  void arm_watch();
  void push_watched_changes();
  // A change is answered once the store has it.
  void reply_once_stored(const ReplyTo& to, protocol::AdminResult result);
  // Said with every get and describe: what waits on an operator.
  std::vector<std::string> operator_warnings() const {
    return actors::operator_warnings(store_degraded, reconciler.held());
  }

  // Coalesced: however many changes arrive, at most one pass waits in the
  // mailbox. While recovering none runs: a restored job must not be placed
  // again before the agent that may still run it has said Hello.
  void request_pass();

  // Feeds one input to the reconciler and carries out what it decided.
  // `input` is a member of hub::Reconciler taking `args`, then now and the outbox.
  template <class Input, class... Args>
  void reconcile(Input input, Args&&... args) {
    outbox.clear();
    (reconciler.*input)(std::forward<Args>(args)..., now(), outbox);
    carry_out(outbox);
  }
  void carry_out(hub::Outbox& out);

  // ---- job objects (actors/job_objects.hpp)
  // Has the store forget the rows of forgotten jobs.
  void forget(const ForgottenRows& rows);
  void expire_jobs();
  // Whether the store keeps an ended job of that name (which get jobs lists).
  bool holds_ended(std::string_view name);
  // The phase of an ended job only the store keeps; "" when there is none.
  std::string ended_phase(const std::string& name);

  caf::event_based_actor* const self;
  const caf::actor dispatcher;
  const caf::actor store;
  hub::SchedulerCore core;
  hub::Reconciler reconciler;  // after core, which it drives
  JobObjects objects;
  LastSeen last_seen;
  std::string store_degraded;  // why the store keeps writes in memory; "" when it does not
  hub::Outbox outbox;
  bool pass_queued = false;
  ListWatch watch;

 private:
  void record_end(const hub::JobEnd& end);
  void send_commits(const std::vector<hub::DispatchId>& commits);
  void record_then_send(std::vector<DispatchRecord> records, std::vector<PartFrame> frames);
  void recorded(std::vector<PartFrame>& frames, const std::string& error);
  void give_up(const std::vector<PartFrame>& frames, const std::string& error);

  OutboundSink& sink_;
  Clock clock_;
  bool watch_armed_ = false;
  WakeUp expiry_wake_;
  // Ended jobs the core released (hub::JobRetention::release): their names.
  std::unique_ptr<JobHistory> ended_;
};

}  // namespace gantry::actors
