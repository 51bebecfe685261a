// The scheduler actor: the one owner of hub::SchedulerCore. Every other actor
// forwards what it learns here; after each change one scheduling pass is
// queued (coalesced), and its decisions go to the dispatcher as one batch.
// What agents' answers (and a restart's leftovers) mean is hub::Reconciler's:
// this actor feeds it and sends what it decides.
#include <spdlog/spdlog.h>

#include <map>
#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/admin_replies.hpp"
#include "actors/core_views.hpp"
#include "actors/job_events.hpp"
#include "config/volcano_queue.hpp"
#include "hub/reconciler.hpp"
#include "hub/scheduler.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

class Scheduler {
 public:
  Scheduler(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor dispatcher,
            caf::actor store, SchedulerSettings settings)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        dispatcher_(std::move(dispatcher)),
        store_(std::move(store)),
        core_(core_options(settings)),
        reconciler_(core_) {
    core_.ensure_queue(kDefaultQueue);  // listed even before its first job
    if (settings.recovery_grace.count() > 0) {
      reconciler_.begin_recovery();
      self_->delayed_send(self_, settings.recovery_grace, recovered_atom_v);
    }
  }

  caf::behavior behavior() {
    return {
        [this](const ReplyTo& to, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) { accept(&to, std::move(request), row, submitted_ms); },
        [this](restore_atom, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) {
          accept(nullptr, std::move(request), row, submitted_ms);
        },
        [this](const protocol::Hello& hello) { reconcile(&hub::Reconciler::on_hello, hello); },
        [this](const protocol::UsageReport& report) {
          reconcile(&hub::Reconciler::on_usage, report);
        },
        [this](lost_atom, const std::string& cluster) {
          reconcile(&hub::Reconciler::on_cluster_lost, cluster);
        },
        [this](seen_atom, std::map<std::string, hub::TimeMs>& seen) {
          last_seen_ = std::move(seen);
        },
        [this](const std::string& cluster, const protocol::Admit& admit) {
          reconcile(&hub::Reconciler::on_admit, cluster, admit);
        },
        [this](const std::string& cluster, const protocol::Reject& reject) {
          reconcile(&hub::Reconciler::on_reject, cluster, reject);
        },
        [this](const std::string& cluster, protocol::StatusUpdate& update) {
          reconcile(&hub::Reconciler::on_status, cluster, std::move(update));
        },
        [this](const ReplyTo& to, const protocol::ListRequest& request) { on_list(to, request); },
        [this](const ReplyTo& to, const protocol::DescribeRequest& request) {
          on_describe(to, request);
        },
        [this](const ReplyTo& to, const protocol::CancelRequest& request) {
          on_cancel(to, request);
        },
        [this](const ReplyTo& to, const protocol::ApplyRequest& request) {
          reply(to, apply_queue(request.yaml, true));
        },
        [this](restore_atom, const protocol::ApplyRequest& request) { apply_queue(request.yaml, false); },
        [this](const ReplyTo& to, const protocol::DeleteRequest& request) {
          reply(to, delete_queue(request));
        },
        [this](schedule_atom) { run_pass(); },
        [this](recovered_atom) { reconcile(&hub::Reconciler::end_recovery); },
    };
  }

 private:
  static hub::SchedulerOptions core_options(const SchedulerSettings& settings) {
    hub::SchedulerOptions options;
    options.first_dispatch_id = settings.first_dispatch_id;
    return options;
  }

  hub::TimeMs now() const { return clock_(); }

  // Creates or updates a queue; recorded so it outlives a restart.
  protocol::AdminResult apply_queue(const std::string& yaml, bool persist) {
    try {
      const hub::QueueSpec spec = config::parse_volcano_queue(yaml);
      const bool existed = core_.find_queue(spec.name).has_value();
      core_.apply_queue(spec);
      if (persist) self_->send(store_, persist_atom_v, spec.name, yaml);
      request_pass();  // shares moved: jobs may fit now
      return {true, "queue/" + spec.name + (existed ? " configured" : " created"), ""};
    } catch (const std::exception& e) {
      spdlog::info("queue refused: {}", e.what());
      return {false, "", e.what()};
    }
  }

  protocol::AdminResult delete_queue(const protocol::DeleteRequest& request) {
    if (request.kind != "queue")
      return {false, "", "kind: cannot delete a \"" + request.kind + "\" (only queues)"};
    try {
      core_.delete_queue(request.name);
      self_->send(store_, forget_atom_v, request.name);
      request_pass();
      return {true, "queue/" + request.name + " deleted", ""};
    } catch (const std::exception& e) {
      return {false, "", e.what()};
    }
  }

  template <class T>
  void reply(const ReplyTo& to, const T& message) {
    if (to.peer.empty()) return;
    sink_.send(OutboundFrame{Channel::kAdmin, to.peer, protocol::encode(message, to.seq), 0});
  }

  // Coalesced: however many changes arrive, at most one pass waits in the
  // mailbox. While recovering none runs: a restored job must not be placed
  // again before the agent that may still run it has said Hello.
  void request_pass() {
    if (pass_queued_ || reconciler_.recovering()) return;
    pass_queued_ = true;
    self_->send(self_, schedule_atom_v);
  }

  void run_pass() {
    pass_queued_ = false;
    const hub::TimeMs at = now();
    const std::vector<hub::Decision>& decisions = core_.schedule(at);
    if (decisions.empty()) return;
    std::vector<OutgoingDispatch> batch;
    std::vector<CancelOrder> evictions;
    batch.reserve(decisions.size());
    for (const hub::Decision& decision : decisions) {
      const hub::Job& job = core_.job(decision.job);
      const std::string& cluster = core_.cluster(decision.cluster).name();
      if (decision.kind == hub::Decision::Kind::kEvict) {
        // The core has already requeued the job; its agent must stop it.
        evictions.push_back(CancelOrder{cluster, decision.dispatch, job.name});
        events_.add(decision.job, at, "evicted from " + cluster + " to make room; requeued");
        spdlog::info("job {}: evicted from cluster {}", job.name, cluster);
        continue;
      }
      batch.push_back(OutgoingDispatch{cluster, decision.dispatch, job.name,
                                       protocol::encode(wire_dispatch(core_, decision))});
      events_.add(decision.job, at, "dispatched to " + cluster);
      spdlog::debug("job {}: dispatch {} to cluster {}", job.name, decision.dispatch, cluster);
    }
    // Stops first, so the evicted jobs' resources are freed before new ones start.
    if (!evictions.empty()) self_->send(dispatcher_, std::move(evictions));
    if (!batch.empty()) self_->send(dispatcher_, std::move(batch));
  }

  // ---- submissions

  // `to` is null for a job re-submitted from the store after a restart.
  void accept(const ReplyTo* to, hub::JobRequest request, std::int64_t row,
              hub::TimeMs submitted_ms) {
    const std::string name = request.name;
    hub::JobId id = 0;
    try {
      id = core_.submit(std::move(request), submitted_ms);
    } catch (const std::exception& e) {
      refuse(to, name, row, e.what());
      return;
    }
    if (id >= store_rows_.size()) store_rows_.resize(id + 1, 0);
    store_rows_[id] = row;
    events_.add(id, submitted_ms, "submitted");
    if (to) {
      spdlog::info("job {} submitted", name);
      reply(*to, protocol::SubmitJobReply{true, name, ""});
    } else {
      reconcile(&hub::Reconciler::on_restored, id);
    }
    request_pass();
  }

  void refuse(const ReplyTo* to, const std::string& name, std::int64_t row,
              const std::string& error) {
    if (to) {
      spdlog::info("job {} refused: {}", name, error);
      if (row != 0) self_->send(store_, forget_atom_v, row);
      reply(*to, protocol::SubmitJobReply{false, name, error});
    } else {
      spdlog::error("job {} from the store cannot be queued again: {}", name, error);
      self_->send(store_, finish_atom_v, row, std::string(protocol::phase::kFailed), now());
    }
  }

  // Feeds one input to the reconciler and carries out what it decided.
  // `input` is a member of hub::Reconciler taking `args`, then now and the outbox.
  template <class Input, class... Args>
  void reconcile(Input input, Args&&... args) {
    outbox_.clear();
    (reconciler_.*input)(std::forward<Args>(args)..., now(), outbox_);
    drain(outbox_);
  }

  void drain(hub::Outbox& out) {
    for (hub::LogLine& line : out.log) log(line);
    for (hub::JobEvent& event : out.events) events_.add(event.job, event.at, std::move(event.text));
    for (const hub::JobEnd& end : out.ends) record_end(end);
    if (!out.cancels.empty()) {
      std::vector<CancelOrder> orders;
      orders.reserve(out.cancels.size());
      for (hub::AgentCancel& cancel : out.cancels)
        orders.push_back(CancelOrder{std::move(cancel.cluster), cancel.dispatch, std::move(cancel.job)});
      self_->send(dispatcher_, std::move(orders));
    }
    if (out.pass_wanted) request_pass();
  }

  static void log(const hub::LogLine& line) {
    switch (line.level) {
      case hub::LogLine::Level::kInfo: spdlog::info(line.text); break;
      case hub::LogLine::Level::kWarn: spdlog::warn(line.text); break;
      case hub::LogLine::Level::kError: spdlog::error(line.text); break;
    }
  }

  void record_end(const hub::JobEnd& end) {
    const std::int64_t row = end.job < store_rows_.size() ? store_rows_[end.job] : 0;
    if (row != 0)
      self_->send(store_, finish_atom_v, row, std::string(hub::phase_name(end.phase)), end.at);
  }

  // ---- admin

  void on_list(const ReplyTo& to, const protocol::ListRequest& request) {
    reply(to, list_reply(core_, request, last_seen_));
  }

  void on_describe(const ReplyTo& to, const protocol::DescribeRequest& request) {
    reply(to, describe_reply(core_, events_, request, last_seen_));
  }

  void on_cancel(const ReplyTo& to, const protocol::CancelRequest& request) {
    reply(to, cancel(request));
  }

  protocol::AdminResult cancel(const protocol::CancelRequest& request) {
    protocol::AdminResult answer;
    if (request.kind != "job") {
      answer.error = "kind: cannot cancel a \"" + request.kind + "\" (only jobs)";
      return answer;
    }
    outbox_.clear();
    const std::optional<std::string> refused = reconciler_.cancel(request.name, now(), outbox_);
    drain(outbox_);
    if (refused) {
      answer.error = *refused;
      return answer;
    }
    answer.ok = true;
    answer.message = "job \"" + request.name + "\" cancelled";
    return answer;
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  caf::actor dispatcher_;
  caf::actor store_;
  hub::SchedulerCore core_;
  JobEvents events_;
  std::vector<std::int64_t> store_rows_;  // by JobId; 0 when not stored
  LastSeen last_seen_;
  bool pass_queued_ = false;
  hub::Reconciler reconciler_;  // after core_, which it drives
  hub::Outbox outbox_;
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
                      std::move(store), settings);
}

}  // namespace gantry::actors
