// The scheduler actor: the one owner of hub::SchedulerCore. Every other actor
// forwards what it learns here; after each change one scheduling pass is
// queued (coalesced). A pass's dispatches are recorded in the store (one
// write), and only then do their Prepares go to the dispatcher (one batch);
// a commit is recorded before its Commits leave. What agents' answers, their
// silence and a restart's leftovers mean is hub::Reconciler's: this actor
// feeds it and carries out what it decides (actors/scheduler_context.hpp).
// Operators' requests are actors/scheduler_admin.hpp's.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/admin_replies.hpp"
#include "actors/decision_frames.hpp"
#include "actors/hub_metrics.hpp"
#include "actors/recovery_gate.hpp"
#include "actors/scheduler_admin.hpp"
#include "actors/scheduler_context.hpp"
#include "hub/field_error.hpp"
#include "support/log_fields.hpp"

namespace gantry::actors {

namespace {

class Scheduler {
 public:
  Scheduler(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor dispatcher,
            caf::actor store, const SchedulerSettings& settings)
      : ctx_(self, sink, std::move(clock), std::move(dispatcher), std::move(store), settings),
        admin_(ctx_) {
    if (settings.recovery_grace.count() > 0) {
      ctx_.reconciler.begin_recovery();
      self->delayed_send(self, settings.recovery_grace, recovered_atom_v);
      recovery_ = RecoveryGate(settings.jobs_to_restore);
      self->delayed_send(self, std::max(settings.recovery_limit, settings.recovery_grace),
                         recovered_atom_v, true);
    }
  }

  caf::behavior behavior() { return admin_.handlers().or_else(agent_and_pass_handlers()); }

 private:
  caf::message_handler agent_and_pass_handlers() {
    return {
        [this](const ReplyTo& to, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) {
          accept(&to, std::move(request), row, submitted_ms, nullptr);
        },
        [this](const std::shared_ptr<SubmissionBatch>& batch) { accept_batch(*batch); },
        [this](restore_atom, hub::JobRequest& request, std::int64_t row, std::int64_t submitted_ms,
               const StoredDispatch& record) {
          accept(nullptr, std::move(request), row, submitted_ms, &record);
          count_restored();
        },
        // A stored job the queue actor dropped (no longer valid): it will not come.
        [this](restore_atom, std::int64_t /*row*/) { count_restored(); },
        [this](const protocol::Hello& hello) { return on_hello(hello); },
        [this](const protocol::UsageReport& report) {
          const support::LogScope log_scope({.cluster = report.cluster});
          ctx_.reconcile(&hub::Reconciler::on_usage, report);
          end_recovery_when_restored();  // it may have been the last one awaited
        },
        [this](silent_atom, const std::string& cluster) {
          const support::LogScope log_scope({.cluster = cluster});
          ctx_.reconcile(&hub::Reconciler::on_cluster_silent, cluster);
        },
        [this](heard_atom, const std::string& cluster) {
          const support::LogScope log_scope({.cluster = cluster});
          ctx_.reconcile(&hub::Reconciler::on_cluster_heard, cluster);
        },
        [this](lost_atom, const std::string& cluster) {
          const support::LogScope log_scope({.cluster = cluster});
          ctx_.reconcile(&hub::Reconciler::on_cluster_lost, cluster);
          forget_after(&JobObjects::cluster_gone, cluster);
        },
        [this](seen_atom, LastSeen& seen) { ctx_.last_seen = std::move(seen); },
        [this](const std::string& cluster, const protocol::Admit& admit) {
          const support::LogScope log_scope(
              {.job = admit.job, .cluster = cluster, .dispatch = admit.dispatch_id});
          metrics_.prepare_answered(cluster, true);
          ctx_.reconcile(&hub::Reconciler::on_admit, cluster, admit);
        },
        [this](const std::string& cluster, const protocol::Reject& reject) {
          const support::LogScope log_scope(
              {.job = reject.job, .cluster = cluster, .dispatch = reject.dispatch_id});
          metrics_.prepare_answered(cluster, false);
          ctx_.reconcile(&hub::Reconciler::on_reject, cluster, reject);
        },
        [this](const std::string& cluster, const protocol::Resized& resized) {
          const support::LogScope log_scope(
              {.job = resized.job, .cluster = cluster, .dispatch = resized.dispatch_id});
          ctx_.reconcile(&hub::Reconciler::on_resized, cluster, resized);
        },
        [this](const std::string& cluster, protocol::StatusUpdate& update) {
          const hub::DispatchId dispatch = update.dispatch_id;
          // A copy: the update moves into the reconciler while the scope lasts.
          const std::string job = update.job;
          const support::LogScope log_scope({.job = job, .cluster = cluster, .dispatch = dispatch});
          const bool stopped = is_stop(update.phase);
          ctx_.reconcile(&hub::Reconciler::on_status, cluster, std::move(update));
          if (stopped) forget_after(&JobObjects::part_stopped, dispatch, cluster);
        },
        [this](schedule_atom) { run_pass(); },
        [this](tick_atom) {  // a backoff or a job's retention ran out
          ctx_.expire_jobs();
          ctx_.request_pass();
        },
        [this](degraded_atom, std::string& why) { ctx_.store_degraded = std::move(why); },
        [this](recovered_atom) {
          recovery_.grace_over();
          end_recovery_when_restored();
        },
        [this](recovered_atom, bool /*limit*/) { recovery_limit_over(); },
        // The HTTP endpoint's questions (actors/hub_http.hpp).
        [this](metrics_atom) {
          return metrics_.render(ctx_.core, ctx_.last_seen, ctx_.now(), health());
        },
        [this](ready_atom) { return not_ready_reason(health()); },
        // get -w (actors/list_watch.hpp).
        [this](watch_atom) { ctx_.push_watched_changes(); },
        [this](gone_atom, const std::string& peer) { ctx_.watch.remove(peer); },
        // The web view's (actors/web_view.hpp): gantryctl's get and describe,
        // answered to the asker. A request without a ReplyTo comes from
        // inside the hub; gantryctl's come with one (scheduler_admin.hpp).
        [this](const protocol::ListRequest& request) {
          return list_reply(ctx_.core, request, ctx_.last_seen, ctx_.now(),
                            PendingScores::kOmitted);
        },
        [this](const protocol::DescribeRequest& request) {
          return describe_reply(ctx_.core, ctx_.objects.events(), request, ctx_.last_seen,
                                ctx_.now());
        },
    };
  }

  HubHealth health() const { return HubHealth{ctx_.reconciler.recovering(), ctx_.store_degraded}; }

  // Answered "" once what the Hello changed is durable: the agent forgets
  // the ends it repeated when it is welcomed.
  caf::typed_response_promise<std::string> on_hello(const protocol::Hello& hello) {
    const support::LogScope log_scope({.cluster = hello.cluster});
    ctx_.reconcile(&hub::Reconciler::on_hello, hello);
    forget_after(&JobObjects::parts_listed, hello);
    auto stored = ctx_.self->make_response_promise<std::string>();
    if (hello.ended.empty()) {
      stored.deliver(std::string());
      return stored;
    }
    ctx_.self->request(ctx_.store, caf::infinite, record_atom_v)
        .then([stored](const std::string& error) mutable { stored.deliver(error); },
              [this, stored](const caf::error& error) mutable {
                stored.deliver(ctx_.self->system().render(error));
              });
    return stored;
  }

  // A JobObjects input that may forget jobs; the store forgets their rows.
  template <class Input, class... Args>
  void forget_after(Input input, Args&&... args) {
    ForgottenRows forgotten;
    (ctx_.objects.*input)(std::forward<Args>(args)..., ctx_.now(), forgotten);
    ctx_.forget(forgotten);
  }

  // A pass when the next backoff runs out (a job may then go where it was
  // refused), unless one is already due by then.
  void wake_for_backoffs(hub::TimeMs at) {
    if (auto delay = backoff_wake_.arm(ctx_.core.next_backoff_end(at), at, 0))
      ctx_.self->delayed_send(ctx_.self, *delay, tick_atom_v);
  }

  void count_restored() {
    recovery_.job_back();
    end_recovery_when_restored();
  }

  // After a restart no pass runs until the gate opens (actors/recovery_gate.hpp).
  void end_recovery_when_restored() {
    if (!ctx_.reconciler.recovering() ||
        !recovery_.may_end([this] { return ctx_.reconciler.clusters_awaited(); }))
      return;
    ctx_.reconcile(&hub::Reconciler::end_recovery);
  }

  void recovery_limit_over() {
    if (!ctx_.reconciler.recovering()) return;
    const std::vector<std::string> awaited = ctx_.reconciler.clusters_awaited();
    if (!awaited.empty())
      spdlog::warn(
          "recovery: cluster(s) {} did not report within the lost grace; their agents have "
          "stopped what they ran (self-fencing): placing its jobs again",
          fmt::join(awaited, ", "));
    recovery_.limit_over();
    end_recovery_when_restored();
  }

  // "waiting: ..." once for each job a pass left waiting for a new kind of reason.
  void record_waiting_reasons(hub::TimeMs at) {
    ctx_.core.take_reason_changes(reason_changes_);
    for (const hub::JobId id : reason_changes_)
      ctx_.objects.events().add(id, at, "waiting: " + ctx_.core.reason_text(ctx_.core.job(id)));
  }

  void run_pass() {
    ctx_.pass_queued = false;
    const hub::TimeMs at = ctx_.now();
    if (!passed_once_) {  // how long a restart took to schedule again (bench/README.md)
      passed_once_ = true;
      spdlog::info("first scheduling pass: {} job(s) pending", ctx_.core.pending_count());
    }
    const auto started = std::chrono::steady_clock::now();
    const std::vector<hub::Decision>& decisions = ctx_.core.schedule(at);
    metrics_.observe_pass(
        ctx_.core, decisions, at,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    wake_for_backoffs(at);
    record_waiting_reasons(at);
    // Evictions and PodPending timeouts may have fired lifecycle policies.
    ctx_.reconcile(&hub::Reconciler::carry_out_lifecycle);
    if (decisions.empty()) return;
    auto [evictions, records, prepares, resizes] =
        pass_frames(ctx_.core, decisions, ctx_.objects.rows(), ctx_.objects.events(), at);
    caf::event_based_actor* self = ctx_.self;
    // Stops first, so the evicted jobs' resources are freed before new ones
    // start: at the Prepares' priority, or the Prepares would overtake them
    // in the dispatcher's mailbox and reach the agent before the Cancels.
    if (!evictions.empty())
      self->send<caf::message_priority::high>(ctx_.dispatcher, std::move(evictions));
    for (auto& [cluster, resize] : resizes)
      self->send<caf::message_priority::high>(ctx_.dispatcher, cluster, std::move(resize));
    // The Prepares need not wait for their record: a part prepared by a hub
    // that then restarts without a record of it is aborted (hub::Reconciler),
    // and the commit record, which does gate, is written after this one
    // (one priority, so in order).
    if (!records.empty())
      self->send<caf::message_priority::high>(ctx_.store, persist_atom_v, std::move(records));
    if (!prepares.empty())
      self->send<caf::message_priority::high>(ctx_.dispatcher, std::move(prepares));
  }

  // `to` is null for a job re-submitted from the store after a restart, with
  // its last dispatch record.
  void accept(const ReplyTo* to, hub::JobRequest request, std::int64_t row,
              hub::TimeMs submitted_ms, const StoredDispatch* stored) {
    if (to) {
      protocol::SubmittedJob result = queue_new(std::move(request), row, submitted_ms);
      ctx_.reply(*to, protocol::SubmitJobReply{result.ok, result.job, result.error});
      if (result.ok) ctx_.request_pass();
      return;
    }
    const std::string name = request.name;
    hub::JobId id = 0;
    try {
      id = ctx_.core.submit(std::move(request), submitted_ms);
    } catch (const std::exception& e) {
      refuse_restored(name, row, e.what());
      return;
    }
    ctx_.objects.accepted(id, row, submitted_ms);
    restored(id, stored);
    ctx_.request_pass();
  }

  // A SubmitJobsRequest's recorded jobs, queued in document order; one answer.
  void accept_batch(SubmissionBatch& batch) {
    for (std::size_t i = 0; i < batch.valid.size(); ++i) {
      if (batch.rows[i] == 0) continue;  // not recorded: its result says why
      protocol::SubmittedJob& result = batch.results[batch.valid[i]];
      const std::int32_t document = result.document;
      result = queue_new(std::move(batch.requests[i]), batch.rows[i], batch.submitted_ms);
      result.document = document;
    }
    ctx_.reply(batch.to, protocol::SubmitJobsReply{true, "", std::move(batch.results)});
    ctx_.request_pass();
  }

  // A new (recorded) submission into the core: accepted, or refused and its
  // row forgotten.
  protocol::SubmittedJob queue_new(hub::JobRequest request, std::int64_t row,
                                   hub::TimeMs submitted_ms) {
    const std::string name = request.name;
    hub::JobId id = 0;
    try {
      // As Kubernetes keeps a finished Job's name until it is deleted.
      if (!name.empty() && ctx_.holds_ended(name))
        throw hub::FieldError("metadata.name", name,
                              "an ended job with this name exists (gantryctl delete job " + name +
                                  " frees the name)");
      id = ctx_.core.submit(std::move(request), submitted_ms);
    } catch (const std::exception& e) {
      const support::LogScope log_scope({.job = name});
      spdlog::info("job {} refused: {}", name, e.what());
      if (row != 0) ctx_.self->send(ctx_.store, forget_atom_v, row);
      return {0, false, name, e.what()};
    }
    ctx_.objects.accepted(id, row, submitted_ms);
    const std::string& made = ctx_.core.job(id).name;  // the hub's, for a generateName
    const support::LogScope log_scope({.job = made});
    spdlog::info("job {} submitted", made);
    if (made != name) ctx_.self->send(ctx_.store, persist_atom_v, row, made);
    return {0, true, made, ""};
  }

  void restored(hub::JobId id, const StoredDispatch* stored) {
    if (stored == nullptr || stored->id == 0) {
      ctx_.reconcile(&hub::Reconciler::on_restored, id,
                     static_cast<const hub::RestoredDispatch*>(nullptr));
      return;
    }
    const hub::RestoredDispatch record{stored->id, stored->committed, stored->clusters,
                                       stored->rendezvous_host, stored->rendezvous_port};
    ctx_.reconcile(&hub::Reconciler::on_restored, id, &record);
  }

  void refuse_restored(const std::string& name, std::int64_t row, const std::string& error) {
    const support::LogScope log_scope({.job = name});
    spdlog::error("job {} from the store cannot be queued again: {}", name, error);
    ctx_.self->send(ctx_.store, finish_atom_v, row, std::string(protocol::phase::kFailed),
                    ctx_.now());
  }

  SchedulerContext ctx_;
  SchedulerAdmin admin_;
  RecoveryGate recovery_;  // while the reconciler recovers
  WakeUp backoff_wake_;
  bool passed_once_ = false;
  std::vector<hub::JobId> reason_changes_;  // record_waiting_reasons(), reused
  SchedulingMetrics metrics_;
};

struct SchedulerState {
  std::unique_ptr<Scheduler> scheduler;
  static inline const char* name = "gantry.scheduler";
};

caf::behavior scheduler_actor(caf::stateful_actor<SchedulerState>* self, OutboundSink* sink,
                              Clock clock, caf::actor dispatcher, caf::actor store,
                              SchedulerSettings settings) {
  self->state.scheduler = std::make_unique<Scheduler>(
      self, *sink, std::move(clock), std::move(dispatcher), std::move(store), settings);
  return self->state.scheduler->behavior();
}

}  // namespace

caf::actor spawn_scheduler(caf::actor_system& system, OutboundSink& sink, Clock clock,
                           caf::actor dispatcher, caf::actor store, SchedulerSettings settings) {
  return system.spawn(scheduler_actor, &sink, std::move(clock), std::move(dispatcher),
                      std::move(store), std::move(settings));
}

}  // namespace gantry::actors
