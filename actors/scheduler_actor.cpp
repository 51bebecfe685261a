// The scheduler actor: the one owner of hub::SchedulerCore. Every other actor
// forwards what it learns here; after each change one scheduling pass is
// queued (coalesced). A pass's dispatches are recorded in the store (one
// write), and only then do their Prepares go to the dispatcher (one batch);
// a commit is recorded before its Commits leave. What agents' answers, their
// silence and a restart's leftovers mean is hub::Reconciler's: this actor
// feeds it and carries out what it decides.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/admin_replies.hpp"
#include "actors/core_views.hpp"
#include "actors/job_events.hpp"
#include "actors/job_history.hpp"
#include "actors/recovery_gate.hpp"
#include "actors/decision_frames.hpp"
#include "hub/field_error.hpp"
#include "hub/job_retention.hpp"
#include "hub/placement_policy.hpp"
#include "hub/reconciler.hpp"
#include "hub/scheduler.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

class Scheduler {
 public:
  Scheduler(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor dispatcher,
            caf::actor store, const SchedulerSettings& settings)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        dispatcher_(std::move(dispatcher)),
        store_(std::move(store)),
        core_(settings.core),
        reconciler_(core_),
        retention_(core_, settings.keep_finished.count()) {
    core_.ensure_queue(kDefaultQueue);  // listed even before its first job
    // Known before their agents say Hello, so nothing is placed there meanwhile.
    for (const std::string& cluster : settings.cordoned)
      core_.set_cordoned(core_.add_cluster(cluster), true);
    stop_grace_ = settings.deleted_stop_grace;
    if (!settings.state_dir.empty()) {
      ended_ = std::make_unique<JobHistory>(settings.state_dir);
      core_.set_names_held_elsewhere([this](std::string_view name) { return holds_ended(name); });
    }
    if (settings.state_first_dispatch_id != 0)
      reconciler_.hold_runs_of_other_states(settings.state_first_dispatch_id,
                                            settings.later_generations_from);
    if (settings.recovery_grace.count() > 0) {
      reconciler_.begin_recovery();
      self_->delayed_send(self_, settings.recovery_grace, recovered_atom_v);
      recovery_ = RecoveryGate(settings.jobs_to_restore);
      self_->delayed_send(self_, std::max(settings.recovery_limit, settings.recovery_grace),
                          recovered_atom_v, true);
    }
  }

  caf::behavior behavior() {
    return {
        [this](const ReplyTo& to, hub::JobRequest& request, std::int64_t row,
               std::int64_t submitted_ms) {
          accept(&to, std::move(request), row, submitted_ms, nullptr);
        },
        [this](restore_atom, hub::JobRequest& request, std::int64_t row, std::int64_t submitted_ms,
               const StoredDispatch& record) {
          accept(nullptr, std::move(request), row, submitted_ms, &record);
          count_restored();
        },
        // Answered "" once what the Hello changed is durable: the agent
        // forgets the ends it repeated when it is welcomed.
        [this](const protocol::Hello& hello) {
          reconcile(&hub::Reconciler::on_hello, hello);
          deleted_parts_listed(hello);
          auto stored = self_->make_response_promise<std::string>();
          if (hello.ended.empty()) {
            stored.deliver(std::string());
            return stored;
          }
          self_->request(store_, caf::infinite, record_atom_v)
              .then([stored](const std::string& error) mutable { stored.deliver(error); },
                    [this, stored](const caf::error& error) mutable {
                      stored.deliver(self_->system().render(error));
                    });
          return stored;
        },
        [this](const protocol::UsageReport& report) {
          reconcile(&hub::Reconciler::on_usage, report);
          end_recovery_when_restored();  // it may have been the last one awaited
        },
        [this](silent_atom, const std::string& cluster) {
          reconcile(&hub::Reconciler::on_cluster_silent, cluster);
        },
        [this](heard_atom, const std::string& cluster) {
          reconcile(&hub::Reconciler::on_cluster_heard, cluster);
        },
        [this](lost_atom, const std::string& cluster) {
          reconcile(&hub::Reconciler::on_cluster_lost, cluster);
          deleted_parts_gone(cluster);
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
        [this](const std::string& cluster, const protocol::Resized& resized) {
          on_resized(cluster, resized);
        },
        [this](const std::string& cluster, protocol::StatusUpdate& update) {
          const hub::DispatchId dispatch = update.dispatch_id;
          const bool stopped = is_stop(update.phase);
          reconcile(&hub::Reconciler::on_status, cluster, std::move(update));
          if (stopped) deleted_part_stopped(dispatch, cluster);
        },
        [this](const ReplyTo& to, const protocol::ListRequest& request) { on_list(to, request); },
        [this](const ReplyTo& to, const protocol::DescribeRequest& request) {
          on_describe(to, request);
        },
        [this](const ReplyTo& to, const protocol::CancelRequest& request) {
          on_cancel(to, request);
        },
        [this](const ReplyTo& to, const protocol::ClusterActionRequest& request) {
          on_cluster_action(to, request);
        },
        [this](const ReplyTo& to, const hub::QueueSpec& spec, const std::string& yaml) {
          reply_once_stored(to, apply_queue(spec, &yaml));
        },
        [this](restore_atom, const hub::QueueSpec& spec) { apply_queue(spec, nullptr); },
        [this](const ReplyTo& to, const protocol::DeleteRequest& request) {
          if (request.kind == "job" && !core_.find_job(request.name)) {
            self_->send(store_, history_atom_v, to, request);  // ended, known to the store only
            return;
          }
          if (request.kind == "job") {
            if (std::string refusal = not_own_job(to, request.name); !refusal.empty()) {
              reply(to, protocol::AdminResult{false, "", std::move(refusal)});
              return;
            }
          }
          reply_once_stored(to, delete_queue(request));
        },
        [this](schedule_atom) { run_pass(); },
        [this](tick_atom) {  // a backoff or a job's retention ran out
          expire_jobs();
          request_pass();
        },
        [this](degraded_atom, std::string& why) { store_degraded_ = std::move(why); },
        [this](recovered_atom) {
          recovery_.grace_over();
          end_recovery_when_restored();
        },
        [this](recovered_atom, bool /*limit*/) {
          if (!reconciler_.recovering()) return;
          const std::vector<std::string> awaited = reconciler_.clusters_awaited();
          if (!awaited.empty())
            spdlog::warn(
                "recovery: cluster(s) {} did not report within the lost grace; their "
                "agents have stopped what they ran (self-fencing): placing its jobs again",
                fmt::join(awaited, ", "));
          recovery_.limit_over();
          end_recovery_when_restored();
        },
        // A stored job the queue actor dropped (no longer valid): it will not come.
        [this](restore_atom, std::int64_t /*row*/) { count_restored(); },
    };
  }

 private:
  hub::TimeMs now() const { return clock_(); }

  // Creates or updates a queue; its YAML, when given, is recorded so that it
  // outlives a restart (a restored queue's already is).
  protocol::AdminResult apply_queue(const hub::QueueSpec& spec, const std::string* yaml) {
    try {
      const bool existed = core_.find_queue(spec.name).has_value();
      core_.apply_queue(spec);
      if (yaml != nullptr) self_->send(store_, persist_atom_v, spec.name, *yaml);
      request_pass();  // shares moved: jobs may fit now
      return {true, "queue/" + spec.name + (existed ? " configured" : " created"), ""};
    } catch (const std::exception& e) {
      spdlog::info("queue refused: {}", e.what());
      return {false, "", e.what()};
    }
  }

  protocol::AdminResult delete_queue(const protocol::DeleteRequest& request) {
    if (request.kind == "job") return delete_job(request.name);
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

  // A change is answered once the store has it (the store commits in order:
  // a barrier behind the change's writes). A change the store cannot take
  // is live but not yet durable: it says so, and the store retries it.
  void reply_once_stored(const ReplyTo& to, protocol::AdminResult result) {
    if (!result.ok) {
      reply(to, result);
      return;
    }
    self_->request(store_, caf::infinite, record_atom_v)
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
              reply(to, protocol::AdminResult{false, "", self_->system().render(error)});
            });
  }

  // Coalesced: however many changes arrive, at most one pass waits in the
  // mailbox. While recovering none runs: a restored job must not be placed
  // again before the agent that may still run it has said Hello.
  void request_pass() {
    if (pass_queued_ || reconciler_.recovering()) return;
    pass_queued_ = true;
    self_->send(self_, schedule_atom_v);
  }

  // A pass when the next backoff runs out (a job may then go where it was
  // refused), unless one is already due by then.
  void wake_for_backoffs(hub::TimeMs at) {
    const hub::TimeMs end = core_.next_backoff_end(at);
    if (end == 0 || (wake_at_ > at && wake_at_ <= end)) return;
    wake_at_ = end;
    self_->delayed_send(self_, std::chrono::milliseconds(end - at), tick_atom_v);
  }

  void count_restored() {
    recovery_.job_back();
    end_recovery_when_restored();
  }

  // After a restart no pass runs until the gate opens (actors/recovery_gate.hpp).
  void end_recovery_when_restored() {
    if (!reconciler_.recovering() ||
        !recovery_.may_end([this] { return reconciler_.clusters_awaited(); }))
      return;
    reconcile(&hub::Reconciler::end_recovery);
  }

  void run_pass() {
    pass_queued_ = false;
    const hub::TimeMs at = now();
    if (!passed_once_) {  // how long a restart took to schedule again (bench/README.md)
      passed_once_ = true;
      spdlog::info("first scheduling pass: {} job(s) pending", core_.pending_count());
    }
    const std::vector<hub::Decision>& decisions = core_.schedule(at);
    wake_for_backoffs(at);
    // Evictions and PodPending timeouts may have fired lifecycle policies.
    reconcile(&hub::Reconciler::carry_out_lifecycle);
    if (decisions.empty()) return;
    auto [evictions, records, prepares, resizes] =
        pass_frames(core_, decisions, store_rows_, events_, at);
    // Stops first, so the evicted jobs' resources are freed before new ones
    // start: at the Prepares' priority, or the Prepares would overtake them
    // in the dispatcher's mailbox and reach the agent before the Cancels.
    if (!evictions.empty())
      self_->send<caf::message_priority::high>(dispatcher_, std::move(evictions));
    for (auto& [cluster, resize] : resizes)
      self_->send<caf::message_priority::high>(dispatcher_, cluster, std::move(resize));
    // The Prepares need not wait for their record: a part prepared by a hub
    // that then restarts without a record of it is aborted (hub::Reconciler),
    // and the commit record, which does gate, is written after this one
    // (one priority, so in order).
    if (!records.empty())
      self_->send<caf::message_priority::high>(store_, persist_atom_v, std::move(records));
    if (!prepares.empty())
      self_->send<caf::message_priority::high>(dispatcher_, std::move(prepares));
  }

  // ---- elastic jobs (docs/elastic.md)

  void on_resized(const std::string& cluster, const protocol::Resized& resized) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
    const hub::Dispatch* dispatch = core_.find_dispatch(resized.dispatch_id);
    if (!index || dispatch == nullptr) return;
    const hub::JobId job = dispatch->job;
    if (!core_.resize_answered(resized.dispatch_id, *index, resized.elastic_epoch, resized.admitted,
                               now()))
      return;
    const std::int32_t world = core_.find_dispatch(resized.dispatch_id)->world_size;
    events_.add(job, now(),
                resized.admitted
                    ? "elastic: grew to " + std::to_string(world) + " replica(s) (elastic epoch " +
                          std::to_string(resized.elastic_epoch) + ")"
                    : "elastic: growth refused by " + cluster + ": " + resized.reason);
    spdlog::info("job {}: elastic growth {} by cluster {}", core_.job(job).name,
                 resized.admitted ? "admitted" : "refused", cluster);
    request_pass();
  }

  // The Commits leave only once the store has committed the records: a hub
  // that restarts in between knows every part it committed, so it neither
  // loses nor doubles one.
  void record_then_send(std::vector<DispatchRecord> records, std::vector<PartFrame> frames) {
    if (frames.empty()) return;
    auto pending = std::make_shared<std::vector<PartFrame>>(std::move(frames));
    // Ahead of queued submissions in the store's mailbox: frames wait on it.
    self_
        ->request<caf::message_priority::high>(store_, caf::infinite, record_atom_v,
                                               std::move(records))
        .then([this, pending](const std::string& error) { recorded(*pending, error); },
              [this, pending](caf::error& error) {
                recorded(*pending, self_->system().render(error));
              });
  }

  // Frames of dispatches that moved on meanwhile (cancelled, evicted,
  // rejected) are dropped: nothing of them may start.
  void recorded(std::vector<PartFrame>& frames, const std::string& error) {
    if (!error.empty()) {
      give_up(frames, error);
      return;
    }
    std::erase_if(frames, [this](const PartFrame& frame) {
      return core_.find_dispatch(frame.dispatch_id) == nullptr;
    });
    if (!frames.empty()) self_->send<caf::message_priority::high>(dispatcher_, std::move(frames));
  }

  // Not recorded, so not sent: each dispatch is refused as if its first part
  // had been (its job goes back to its queue).
  void give_up(const std::vector<PartFrame>& frames, const std::string& error) {
    spdlog::error("cannot record {} frame(s) in the job store, not sent: {}", frames.size(), error);
    for (const PartFrame& frame : frames) {
      const hub::Dispatch* dispatch = core_.find_dispatch(frame.dispatch_id);
      if (dispatch == nullptr) continue;  // refused already (its first frame) or moved on
      reconcile(&hub::Reconciler::on_reject, core_.cluster(dispatch->parts.front().cluster).name(),
                protocol::Reject{frame.dispatch_id, frame.job,
                                 "the hub could not record it: " + error, 0});
    }
  }

  // ---- submissions

  // `to` is null for a job re-submitted from the store after a restart, with
  // its last dispatch record.
  void accept(const ReplyTo* to, hub::JobRequest request, std::int64_t row,
              hub::TimeMs submitted_ms, const StoredDispatch* stored) {
    const std::string name = request.name;
    hub::JobId id = 0;
    try {
      // As Kubernetes keeps a finished Job's name until it is deleted.
      if (to && !name.empty() && holds_ended(name))
        throw hub::FieldError("metadata.name", name,
                              "an ended job with this name exists (gantryctl delete job " + name +
                                  " frees the name)");
      id = core_.submit(std::move(request), submitted_ms);
    } catch (const std::exception& e) {
      refuse(to, name, row, e.what());
      return;
    }
    if (id >= store_rows_.size()) store_rows_.resize(id + 1, 0);
    store_rows_[id] = row;
    events_.add(id, submitted_ms, "submitted");
    if (to) {
      const std::string& made = core_.job(id).name;  // the hub's, for a generateName
      spdlog::info("job {} submitted", made);
      if (made != name) self_->send(store_, persist_atom_v, row, made);
      reply(*to, protocol::SubmitJobReply{true, made, ""});
    } else if (stored != nullptr && stored->id != 0) {
      const hub::RestoredDispatch record{stored->id, stored->committed, stored->clusters,
                                         stored->rendezvous_host, stored->rendezvous_port};
      reconcile(&hub::Reconciler::on_restored, id, &record);
    } else {
      reconcile(&hub::Reconciler::on_restored, id,
                static_cast<const hub::RestoredDispatch*>(nullptr));
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
    carry_out(outbox_);
  }

  void carry_out(hub::Outbox& out) {
    for (const hub::LogLine& line : out.log) log_line(line);
    for (hub::JobEvent& event : out.events) events_.add(event.job, event.at, std::move(event.text));
    for (const hub::JobEnd& end : out.ends) record_end(end);
    send_stops(out);
    send_commits(out.commits);
    if (out.pass_wanted) request_pass();
  }

  void send_stops(hub::Outbox& out) {
    if (out.cancels.empty() && out.aborts.empty()) return;
    self_->send(dispatcher_, stop_orders(core_, out));
  }

  // Every part admitted: the commit (and the rendezvous) is recorded, then
  // each part gets its Commit.
  void send_commits(const std::vector<hub::DispatchId>& commits) {
    if (commits.empty()) return;
    auto [records, frames] = commit_frames(core_, commits, store_rows_);
    record_then_send(std::move(records), std::move(frames));
  }

  // The end is stored; once it is committed the core forgets the job: get
  // jobs and describe job read it from the store, and memory stays bounded
  // however many jobs ended (the store expires them).
  void record_end(const hub::JobEnd& end) {
    const std::int64_t row = end.job < store_rows_.size() ? store_rows_[end.job] : 0;
    if (row != 0) {
      self_->request(store_, caf::infinite, finish_atom_v, finished_record(core_, events_, last_seen_, end, row, now()))
          .then([this, id = end.job, row](bool) { release_ended(id, row); },
                [](const caf::error&) {});  // the store is gone: the hub stops
    }
    std::vector<hub::JobId> forgotten;
    retention_.finished(end.job, end.at, now(), forgotten);
    forget_jobs(forgotten);
  }

  void release_ended(hub::JobId id, std::int64_t row) {
    if (id >= store_rows_.size() || store_rows_[id] != row) return;  // deleted meanwhile
    if (!retention_.release(id)) return;
    events_.forget(id);
    store_rows_[id] = 0;  // the row stays: only a delete or its expiry removes it
  }

  // Whether the store keeps an ended job of that name (which get jobs lists).
  bool holds_ended(std::string_view name) {
    if (!ended_) return false;
    try {
      return ended_->holds_ended(name);
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return false;
    }
  }

  // The phase of an ended job only the store keeps; "" when there is none.
  std::string ended_phase(const std::string& name) {
    if (!ended_ || core_.find_job(name)) return "";
    try {
      const std::optional<protocol::DescribeReply> ended = ended_->describe(name);
      return ended ? ended->job.phase : "";
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return "";
    }
  }

  // ---- job objects: delete, ttlSecondsAfterFinished (hub::JobRetention)

  // An end, or the agent's word that it stopped the run (after a Cancel).
  static bool is_stop(const std::string& phase) {
    return phase == protocol::phase::kCompleted || phase == protocol::phase::kFailed ||
           phase == protocol::phase::kAborted || phase == protocol::phase::kTerminated;
  }

  // A pending or finished job is forgotten at once; a running one is
  // cancelled first and forgotten once its parts stopped.
  protocol::AdminResult delete_job(const std::string& name) {
    const std::optional<hub::JobId> id = core_.find_job(name);
    if (!id) return {false, "", "job \"" + name + "\" not found"};
    const hub::TimeMs at = now();
    const hub::DispatchId dispatch = core_.job(*id).dispatch;
    std::vector<hub::JobId> forgotten;
    retention_.remove(*id, dispatch, committed_parts(dispatch), at, at + stop_grace_.count(),
                      forgotten);
    forget_jobs(forgotten);
    if (!forgotten.empty()) return {true, "job/" + name + " deleted", ""};
    if (!hub::is_terminal(core_.job(*id).phase)) {
      outbox_.clear();
      reconciler_.cancel(name, at, outbox_);
      carry_out(outbox_);
    }
    if (!core_.job(*id).forgotten)
      events_.add(*id, at, "deleted: forgotten once its replicas have stopped");
    return {true, "job/" + name + " deleted", ""};
  }

  // The clusters where the dispatch's replicas may run: committed parts that
  // have not ended. An uncommitted part started nothing.
  std::vector<hub::ClusterIndex> committed_parts(hub::DispatchId id) const {
    std::vector<hub::ClusterIndex> clusters;
    const hub::Dispatch* dispatch = core_.find_dispatch(id);
    if (dispatch == nullptr || !dispatch->committed) return clusters;
    for (const hub::DispatchPart& part : dispatch->parts)
      if (part.state != hub::PartState::kEnded) clusters.push_back(part.cluster);
    return clusters;
  }

  void deleted_part_stopped(hub::DispatchId dispatch, const std::string& cluster) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
    if (!index) return;
    std::vector<hub::JobId> forgotten;
    retention_.part_stopped(dispatch, *index, now(), forgotten);
    forget_jobs(forgotten);
  }

  // A reconnecting agent that no longer lists a deleted job's part stopped it.
  void deleted_parts_listed(const protocol::Hello& hello) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(hello.cluster);
    if (!index) return;
    for (hub::DispatchId id : retention_.stopping_on(*index)) {
      const bool listed =
          std::any_of(hello.running.begin(), hello.running.end(),
                      [id](const protocol::RunningDispatch& run) { return run.dispatch_id == id; });
      if (!listed) deleted_part_stopped(id, hello.cluster);
    }
  }

  void deleted_parts_gone(const std::string& cluster) {
    const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
    if (!index) return;
    std::vector<hub::JobId> forgotten;
    retention_.cluster_gone(*index, now(), forgotten);
    forget_jobs(forgotten);
  }

  void expire_jobs() {
    const hub::TimeMs at = now();
    if (expiry_wake_at_ <= at) expiry_wake_at_ = 0;
    std::vector<hub::JobId> forgotten;
    retention_.expire(at, forgotten);
    forget_jobs(forgotten);
    wake_for_expiry(at);
  }

  // One timer for the earliest expiry, kept ordered by the retention: no
  // job is looked at before its time.
  void wake_for_expiry(hub::TimeMs at) {
    const hub::TimeMs next = retention_.next_expiry();
    if (next == hub::kNever || (expiry_wake_at_ > at && expiry_wake_at_ <= next)) return;
    expiry_wake_at_ = next;
    self_->delayed_send(self_, std::chrono::milliseconds(std::max<hub::TimeMs>(0, next - at)),
                        tick_atom_v);
  }

  // What the hub keeps about forgotten jobs goes too: their store rows (a
  // restart must not bring them back) and their events.
  void forget_jobs(const std::vector<hub::JobId>& forgotten) {
    for (hub::JobId id : forgotten) {
      events_.forget(id);
      if (id >= store_rows_.size() || store_rows_[id] == 0) continue;
      self_->send(store_, forget_atom_v, store_rows_[id]);
      store_rows_[id] = 0;
    }
    wake_for_expiry(now());  // an end may have started a ttl
  }

  // ---- admin

  // Ended jobs the core has forgotten (a restart, their retention) are
  // added by the store, which answers.
  void on_list(const ReplyTo& to, const protocol::ListRequest& request) {
    protocol::ListReply answer = list_reply(core_, request, last_seen_, now());
    answer.warnings = operator_warnings();
    if (request.kind == "jobs" && answer.ok) {
      self_->send(store_, history_atom_v, to, std::move(answer));
      return;
    }
    reply(to, answer);
  }

  void on_describe(const ReplyTo& to, const protocol::DescribeRequest& request) {
    protocol::DescribeReply answer = describe_reply(core_, events_, request, last_seen_, now());
    answer.warnings = operator_warnings();
    if (request.kind == "job" && !answer.ok) {
      self_->send(store_, history_atom_v, to, request, std::move(answer));
      return;
    }
    reply(to, answer);
  }

  std::vector<std::string> operator_warnings() const {
    return actors::operator_warnings(store_degraded_, reconciler_.held());
  }

  void on_cancel(const ReplyTo& to, const protocol::CancelRequest& request) {
    if (std::string refusal = not_own_job(to, request.name); !refusal.empty()) {
      reply(to, protocol::AdminResult{false, "", std::move(refusal)});
      return;
    }
    reply(to, cancel(request));
  }

  // An operator cancels and deletes only the jobs its key submitted
  // (docs/security.md); "" when `to` may.
  std::string not_own_job(const ReplyTo& to, const std::string& name) const {
    if (to.role != Role::kOperator) return "";
    const std::optional<hub::JobId> id = core_.find_job(name);
    if (!id) return "";  // the answer says it is not found
    const std::string& submitter = core_.job(*id).submitter;
    if (submitter == to.key) return "";
    return "job \"" + name + "\" was submitted by \"" + submitter + "\": key \"" + to.key +
           "\" (operator) may cancel and delete only its own jobs";
  }

  protocol::AdminResult cancel(const protocol::CancelRequest& request) {
    protocol::AdminResult answer;
    if (request.kind != "job") {
      answer.error = "kind: cannot cancel a \"" + request.kind + "\" (only jobs)";
      return answer;
    }
    if (std::string ended = ended_phase(request.name); !ended.empty()) {
      answer.error = "job \"" + request.name + "\" has already ended (" + ended + ")";
      return answer;
    }
    outbox_.clear();
    const std::optional<std::string> refused = reconciler_.cancel(request.name, now(), outbox_);
    carry_out(outbox_);
    if (refused) {
      answer.error = *refused;
      return answer;
    }
    answer.ok = true;
    answer.message = "job \"" + request.name + "\" cancelled";
    return answer;
  }

  // Cordon, uncordon or drain; the cordon is recorded before the answer.
  void on_cluster_action(const ReplyTo& to, const protocol::ClusterActionRequest& request) {
    const std::string& name = request.name;
    const hub::TimeMs at = now();
    std::optional<std::string> refused;
    std::string done;
    outbox_.clear();
    if (request.action == "cordon" || request.action == "uncordon") {
      refused = reconciler_.cordon(name, request.action == "cordon", at, outbox_);
      done = "cluster/" + name + " " + request.action + "ed";
    } else if (request.action == "drain") {
      const std::optional<hub::ClusterIndex> index = core_.find_cluster(name);
      const std::size_t stopping = index ? core_.dispatches_on(*index).size() : 0;
      refused = reconciler_.drain(name, at, outbox_);
      done = "cluster/" + name + " drained: " + std::to_string(stopping) + " job(s) stopping";
    } else {
      reply(to, protocol::AdminResult{false, "",
                                      "action: unknown action \"" + request.action +
                                          "\" (expected cordon, uncordon or drain)"});
      return;
    }
    carry_out(outbox_);
    if (refused) {
      reply(to, protocol::AdminResult{false, "", *refused});
      return;
    }
    const bool cordoned = request.action != "uncordon";
    self_->request(store_, caf::infinite, cordon_atom_v, name, cordoned)
        .then(
            [this, to, done](const std::string& error) { answer_cluster_action(to, done, error); },
            [this, to, done](caf::error& error) {
              answer_cluster_action(to, done, self_->system().render(error));
            });
  }

  void answer_cluster_action(const ReplyTo& to, const std::string& done, const std::string& error) {
    if (error.empty()) {
      reply(to, protocol::AdminResult{true, done, ""});
    } else {
      reply(to, protocol::AdminResult{
                    false, "",
                    done + ", but the store could not record it (a restart forgets it): " + error});
    }
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
  hub::TimeMs wake_at_ = 0;     // when the pending backoff wake-up fires; 0: none
  hub::Reconciler reconciler_;  // after core_, which it drives
  hub::JobRetention retention_;
  bool passed_once_ = false;
  RecoveryGate recovery_;  // while the reconciler recovers
  // A deleted job's parts that never report their stop are given up after
  // this (the lost grace: by then the hub would give up the cluster too).
  std::chrono::milliseconds stop_grace_{120'000};
  hub::TimeMs expiry_wake_at_ = 0;  // when the retention wake-up fires; 0: none
  // Ended jobs the core released (hub::JobRetention::release): their names.
  std::unique_ptr<JobHistory> ended_;
  std::string store_degraded_;  // why the store keeps writes in memory; "" when it does not
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
                      std::move(store), std::move(settings));
}

}  // namespace gantry::actors
