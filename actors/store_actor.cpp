// The store actor: every write of the hub goes through it. Writes that arrive
// while it is busy are committed together in one transaction (group commit):
// a burst of submissions or a pass's dispatches cost a few commits, not one
// each. A write that gates a frame (a submission's acknowledgement, a
// dispatch's Prepares or Commits, a cordon's answer) is answered only once
// its transaction has committed.
//
// A transaction that fails (a full disk, an I/O error) is refused loudly for
// what waits on it (the submission is answered with the error), and kept for
// what does not (a job's end, a dispatch record, a queue): those writes stay
// in memory, in order, and are retried with a growing delay until they
// commit; meanwhile the store says it is degraded.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "actors/admin_answer.hpp"
#include "actors/job_history.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

using WriteFn = std::function<void(JobStore&)>;

struct Write {
  WriteFn apply;
  bool answered = false;  // someone waits on it: refused when it fails, not kept
  // Kept and retried when it fails, like any write nobody waits on, but
  // answered true once it is committed at last.
  std::optional<caf::typed_response_promise<bool>> committed{};
  // Its answer among StoreState::inserts or ::acks; -1: none.
  std::int32_t insert = -1;
  std::int32_t ack = -1;
  // One job of a SubmissionBatch: its batch among StoreState::batches, and
  // its place in the batch.
  std::int32_t batch = -1;
  std::int32_t batch_job = -1;
};

constexpr auto kFirstRetry = std::chrono::milliseconds(500);
constexpr auto kLastRetry = std::chrono::seconds(30);

// Ended jobs are forgotten when their ttl or --keep-finished runs out; the
// store looks again at the earliest such time, and at least this often.
constexpr std::int64_t kLongestExpiryWaitMs = 600'000;
// Forgotten per transaction: a backlog (a hub started long after its jobs
// ended) goes in slices, so submissions never wait behind all of it.
constexpr std::int64_t kExpirySlice = 5'000;

struct StoreState {
  std::shared_ptr<JobStore> store;
  std::unique_ptr<JobHistory> history;  // opened on first use
  OutboundSink* sink = nullptr;
  Clock clock;
  std::chrono::milliseconds keep_finished{0};
  std::shared_ptr<HubIoMetrics> metrics;  // commits timed; nullptr: not
  std::int64_t next_expiry_ms = 0;        // when the store looks for expired jobs next
  std::uint64_t expiry_wake = 0;          // the wake-up that counts; earlier ones were replaced
  std::vector<Write> writes;              // in arrival order, after the kept ones
  std::size_t kept = 0;                   // writes[0, kept): failed before, retried first
  std::chrono::milliseconds retry_delay = kFirstRetry;
  bool retry_queued = false;
  struct PendingInsert {
    caf::typed_response_promise<std::int64_t, std::string> promise;
    std::int64_t row = 0;
  };
  std::vector<PendingInsert> inserts;  // answered (row, error) after the commit
  std::vector<caf::typed_response_promise<std::string>> acks;  // answered (error) after the commit
  // A batch of submissions, answered (rows, errors) once each of its jobs is
  // answered: with SQLite all in one transaction, with etcd in as many as
  // its limits take (each job committed or refused on its own).
  struct PendingBatch {
    caf::typed_response_promise<std::vector<std::int64_t>, std::vector<std::string>> promise;
    std::vector<std::int64_t> rows;
    std::vector<std::string> errors;
    std::size_t unanswered = 0;
  };
  std::vector<PendingBatch> batches;
  bool flush_queued = false;
  bool urgent_flush_queued = false;
  caf::actor told_of_health;  // hears (degraded_atom, why), "" once recovered
  static inline const char* name = "gantry.store";
};

using StoreActor = caf::stateful_actor<StoreState>;

// The flush request goes to the back of the mailbox, so every write already
// queued joins this transaction.
void queue_write(StoreActor* self, WriteFn write, bool answered = false,
                 std::optional<caf::typed_response_promise<bool>> committed = std::nullopt,
                 std::int32_t insert = -1, std::int32_t ack = -1) {
  self->state.writes.push_back(
      Write{std::move(write), answered, std::move(committed), insert, ack});
  if (self->state.flush_queued) return;
  self->state.flush_queued = true;
  self->send(self, flush_atom_v);
}

// A write answered with "" once committed, or with why it was not.
caf::typed_response_promise<std::string> acknowledged_write(StoreActor* self, WriteFn write) {
  self->state.acks.push_back(self->make_response_promise<std::string>());
  queue_write(self, std::move(write), true, std::nullopt, -1,
              static_cast<std::int32_t>(self->state.acks.size() - 1));
  return self->state.acks.back();
}

// Keeps the writes nobody waits on for the retry, in their order; drops
// the answered ones (their senders hear the error).
void keep_unanswered(StoreState& state) {
  const auto answered = std::stable_partition(state.writes.begin(), state.writes.end(),
                                              [](const Write& write) { return !write.answered; });
  state.writes.erase(answered, state.writes.end());
  state.kept = state.writes.size();
}

void schedule_retry(StoreActor* self, const std::string& error) {
  StoreState& state = self->state;
  // Told before it is logged: whoever reads the log and then asks is warned.
  if (state.told_of_health)
    self->send(state.told_of_health, degraded_atom_v,
               std::to_string(state.kept) + " write(s) (job ends, dispatch records, queues) are " +
                   "kept in memory, not stored yet (" + error +
                   "); the hub retries them and refuses submissions meanwhile");
  // Logged once per retry: every flush in between (each new write) fails the
  // same way, and would otherwise log it again, every few milliseconds.
  if (state.retry_queued) return;
  spdlog::error(
      "job store degraded: {}; {} write(s) nobody waits on (job ends, dispatch records, "
      "queues) are kept in memory and retried in {} ms; submissions are refused meanwhile",
      error, state.kept, state.retry_delay.count());
  state.retry_queued = true;
  self->delayed_send(self, state.retry_delay, flush_atom_v);
  state.retry_delay = std::min<std::chrono::milliseconds>(state.retry_delay * 2, kLastRetry);
}

void answer_batch_job(StoreState& state, const Write& write, const std::string& error) {
  StoreState::PendingBatch& batch = state.batches[static_cast<std::size_t>(write.batch)];
  const auto job = static_cast<std::size_t>(write.batch_job);
  if (!error.empty()) {
    batch.rows[job] = 0;
    batch.errors[job] = error;
  }
  if (--batch.unanswered == 0) batch.promise.deliver(batch.rows, batch.errors);
}

// Answers the writes in [first, last): their submissions and barriers with
// `error` ("" once committed).
void answer_writes(StoreState& state, std::size_t first, std::size_t last,
                   const std::string& error) {
  for (std::size_t i = first; i < last; ++i) {
    Write& write = state.writes[i];
    if (write.insert >= 0) {
      StoreState::PendingInsert& insert = state.inserts[static_cast<std::size_t>(write.insert)];
      insert.promise.deliver(error.empty() ? insert.row : std::int64_t{0}, error);
    }
    if (write.ack >= 0) state.acks[static_cast<std::size_t>(write.ack)].deliver(error);
    if (write.batch >= 0) answer_batch_job(state, write, error);
    if (error.empty() && write.committed) write.committed->deliver(true);
  }
}

// Applies writes from `first` on, as many as one transaction of the store
// takes, and commits them; returns the end of those, or sets `error`.
std::size_t commit_slice(StoreState& state, std::size_t first, std::string& error) {
  std::size_t last = first;
  try {
    const auto started = HubIoMetrics::Clock::now();
    state.store->begin();
    while (last < state.writes.size()) {
      state.writes[last++].apply(*state.store);
      if (state.store->transaction_full()) break;
    }
    state.store->commit();
    if (state.metrics)
      state.metrics->committed(
          std::chrono::duration<double>(HubIoMetrics::Clock::now() - started).count(),
          last - first);
  } catch (const std::exception& e) {
    error = e.what();
    state.store->rollback();
  }
  return last;
}

// Commits every write taken so far, in as few transactions as the store
// allows (one for SQLite). The flush message queue_write sent may still come
// after an early flush; it then finds nothing to do.
void flush(StoreActor* self) {
  StoreState& state = self->state;
  state.flush_queued = false;
  state.urgent_flush_queued = false;
  if (state.writes.empty()) return;
  const std::size_t kept_before = state.kept;
  std::string error;
  std::size_t committed = 0;
  while (committed < state.writes.size()) {
    const std::size_t last = commit_slice(state, committed, error);
    if (!error.empty()) break;
    answer_writes(state, committed, last, "");
    committed = last;
  }
  if (!error.empty()) answer_writes(state, committed, state.writes.size(), error);
  state.inserts.clear();
  state.acks.clear();
  state.batches.clear();
  state.writes.erase(state.writes.begin(),
                     state.writes.begin() + static_cast<std::ptrdiff_t>(committed));
  if (!error.empty()) {
    keep_unanswered(state);
    if (state.kept > 0)
      schedule_retry(self, error);
    else
      spdlog::error("job store: {} (the writes waited on were refused)", error);
    return;
  }
  if (kept_before > 0) {
    // Told before it is logged: whoever reads the log and then asks hears no warning.
    if (state.told_of_health) self->send(state.told_of_health, degraded_atom_v, std::string());
    spdlog::info("job store recovered: {} kept write(s) committed", kept_before);
  }
  state.kept = 0;
  state.retry_delay = kFirstRetry;
}

void record_dispatches(JobStore& store, const std::vector<DispatchRecord>& records) {
  for (const DispatchRecord& record : records)
    if (record.row != 0) store.record_dispatch(record.row, record.dispatch);
}

JobHistory& history(StoreState& state) {
  if (!state.history) state.history = state.store->open_history();
  return *state.history;
}

template <class T>
void answer(StoreState& state, const ReplyTo& to, const T& message) {
  if (to.peer.empty()) return;
  state.sink->send(admin_answer(to, message));
}

// The ended jobs the core no longer lists, after the ones it does.
void add_ended_jobs(StoreState& state, protocol::ListReply& reply) {
  std::set<std::string> listed;
  for (const protocol::JobInfo& job : reply.jobs) listed.insert(job.name);
  try {
    std::vector<protocol::JobInfo> ended = history(state).ended(listed);
    reply.jobs.insert(reply.jobs.begin(), std::make_move_iterator(ended.begin()),
                      std::make_move_iterator(ended.end()));
  } catch (const std::exception& e) {
    reply.ok = false;
    reply.error = std::string("ended jobs cannot be read: ") + e.what();
  }
}

// gantry delete job of an ended job only the store holds. An operator
// deletes only what its key submitted (docs/security.md).
protocol::AdminResult delete_ended(StoreState& state, const ReplyTo& to, const std::string& name) {
  try {
    const std::vector<std::string> submitters = state.store->ended_submitters(name);
    if (submitters.empty()) return {false, "", "job \"" + name + "\" not found"};
    if (to.role == Role::kOperator) {
      for (const std::string& submitter : submitters) {
        if (submitter == to.key) continue;
        return {false, "",
                "job \"" + name + "\" was submitted by \"" + submitter + "\": key \"" + to.key +
                    "\" (operator) may cancel and delete only its own jobs"};
      }
    }
    state.store->forget_ended(name);
    return {true, "job/" + name + " deleted", ""};
  } catch (const std::exception& e) {
    return {false, "", e.what()};
  }
}

void wake_for_expiry(StoreActor* self, std::int64_t at) {
  StoreState& state = self->state;
  const std::int64_t now = state.clock();
  at = std::min(at, now + kLongestExpiryWaitMs);
  if (state.next_expiry_ms != 0 && state.next_expiry_ms <= at) return;
  state.next_expiry_ms = at;
  self->delayed_send(self, std::chrono::milliseconds(std::max<std::int64_t>(0, at - now)),
                     history_atom_v, ++state.expiry_wake);
}

// Forgets the ended jobs past their ttl or --keep-finished (in the next
// flush), and wakes again for the next one.
void expire_ended(StoreActor* self, std::uint64_t wake) {
  StoreState& state = self->state;
  if (wake != state.expiry_wake) return;  // replaced by an earlier wake-up since
  const std::int64_t now = state.clock();
  const std::int64_t due = state.next_expiry_ms;
  state.next_expiry_ms = 0;
  if (due > now) {  // the timer's clock ran ahead of the hub's: wait for the rest
    wake_for_expiry(self, due);
    return;
  }
  const std::int64_t keep = state.keep_finished.count();
  queue_write(self, [self, now, keep](JobStore& store) {
    const std::int64_t forgotten = store.forget_expired(now, now - keep, kExpirySlice);
    if (forgotten > 0)
      spdlog::info("job store: forgot {} ended job(s) past their ttl or --keep-finished",
                   forgotten);
    // More wait: the next slice (a store whose transaction is full took fewer).
    if (forgotten == kExpirySlice || store.transaction_full()) wake_for_expiry(self, now);
  });
  std::optional<std::int64_t> next;
  try {
    next = state.store->next_expiry(keep);
  } catch (const std::exception& e) {
    spdlog::error("job store: {}", e.what());
  }
  // Past ones are forgotten by the write above: look again a little later.
  wake_for_expiry(self, next && *next > now ? *next : now + kLongestExpiryWaitMs);
}

caf::typed_response_promise<std::vector<std::int64_t>, std::vector<std::string>> persist_batch(
    StoreActor* self, const std::shared_ptr<SubmissionBatch>& batch) {
  StoreState& state = self->state;
  const std::size_t jobs = batch->requests.size();
  const auto index = static_cast<std::int32_t>(state.batches.size());
  state.batches.push_back(
      {self->make_response_promise<std::vector<std::int64_t>, std::vector<std::string>>(),
       std::vector<std::int64_t>(jobs, 0), std::vector<std::string>(jobs), jobs});
  auto promise = state.batches.back().promise;
  if (jobs == 0) {
    promise.deliver(std::vector<std::int64_t>{}, std::vector<std::string>{});
    state.batches.pop_back();
    return promise;
  }
  for (std::size_t job = 0; job < jobs; ++job) {
    Write write{[&state, index, job, batch](JobStore& store) {
                  const hub::JobRequest& request = batch->requests[job];
                  msgpack::sbuffer packed;
                  if (request.spec) msgpack::pack(packed, *request.spec);
                  state.batches[static_cast<std::size_t>(index)].rows[job] =
                      store.add(request.name, batch->yamls[job], batch->submitted_ms,
                                request.submitter, std::string_view(packed.data(), packed.size()));
                },
                true};
    write.batch = index;
    write.batch_job = static_cast<std::int32_t>(job);
    state.writes.push_back(std::move(write));
  }
  if (!state.flush_queued) {
    state.flush_queued = true;
    self->send(self, flush_atom_v);
  }
  return promise;
}

caf::behavior store_actor(StoreActor* self, std::shared_ptr<JobStore> store, OutboundSink* sink,
                          Clock clock, std::chrono::milliseconds keep_finished,
                          std::shared_ptr<HubIoMetrics> metrics) {
  self->state.store = std::move(store);
  self->state.sink = sink;
  self->state.clock = std::move(clock);
  self->state.keep_finished = keep_finished;
  self->state.metrics = std::move(metrics);
  expire_ended(self, self->state.expiry_wake);
  return {
      // Answers (row, "") or (0, error) once committed.
      // `spec` is packed here, on the store's thread, not the validator's.
      [self](persist_atom, const std::string& name, const std::string& yaml,
             std::int64_t submitted_ms, const std::string& submitter,
             const std::shared_ptr<const protocol::JobSpec>& spec) {
        StoreState& state = self->state;
        const std::size_t index = state.inserts.size();
        state.inserts.push_back({self->make_response_promise<std::int64_t, std::string>(), 0});
        queue_write(
            self,
            [&state, index, name, yaml, submitted_ms, submitter, spec](JobStore& store) {
              msgpack::sbuffer packed;
              if (spec) msgpack::pack(packed, *spec);
              state.inserts[index].row = store.add(name, yaml, submitted_ms, submitter,
                                                   std::string_view(packed.data(), packed.size()));
            },
            true, std::nullopt, static_cast<std::int32_t>(index));
        return state.inserts.back().promise;
      },
      // A SubmitJobsRequest's valid jobs: a write each, queued together so
      // that they share a transaction; answered (rows, errors) once all are
      // committed or refused, a row 0 with its error for a refused one.
      [self](persist_atom, const std::shared_ptr<SubmissionBatch>& batch) {
        return persist_batch(self, batch);
      },
      // Commits: answers "" or the error once committed. Commit frames wait
      // on it, so its transaction does not wait behind queued writes: an
      // urgent flush follows the other urgent messages already queued (the
      // commits of one burst share a transaction), ahead of the rest.
      [self](record_atom, std::vector<DispatchRecord>& records) {
        auto answer = acknowledged_write(self, [records = std::move(records)](JobStore& store) {
          record_dispatches(store, records);
        });
        if (!self->state.urgent_flush_queued) {
          self->state.urgent_flush_queued = true;
          self->send<caf::message_priority::high>(self, flush_atom_v);
        }
        return answer;
      },
      // A pass's dispatches, as they are prepared: nothing waits on them.
      [self](persist_atom, std::vector<DispatchRecord>& records) {
        queue_write(self, [records = std::move(records)](JobStore& store) {
          record_dispatches(store, records);
        });
      },
      // A barrier: answered "" once everything sent before it is committed
      // (an agent's Hello is welcomed only once the ends it repeated are).
      [self](record_atom) { return acknowledged_write(self, [](JobStore&) {}); },
      [self](cordon_atom, const std::string& cluster, bool cordoned) {
        return acknowledged_write(
            self, [cluster, cordoned](JobStore& store) { store.set_cordoned(cluster, cordoned); });
      },
      [self](persist_atom, const std::string& queue, const std::string& yaml) {
        queue_write(self, [queue, yaml](JobStore& store) { store.save_queue(queue, yaml); });
      },
      // Answered "" or the error once committed: an applied class is
      // acknowledged only when it survives a restart.
      [self](priority_class_atom, persist_atom, const std::string& name, const std::string& yaml) {
        return acknowledged_write(
            self, [name, yaml](JobStore& store) { store.save_priority_class(name, yaml); });
      },
      [self](priority_class_atom, forget_atom, const std::string& name) {
        return acknowledged_write(self,
                                  [name](JobStore& store) { store.drop_priority_class(name); });
      },
      [self](forget_atom, const std::string& queue) {
        queue_write(self, [queue](JobStore& store) { store.drop_queue(queue); });
      },
      [self](persist_atom, std::int64_t row, const std::string& name) {
        queue_write(self, [row, name](JobStore& store) { store.rename(row, name); });
      },
      [self](forget_atom, std::int64_t row) {
        queue_write(self, [row](JobStore& store) { store.forget(row); });
      },
      // An end: answered true once committed, however many retries that
      // takes (the scheduler then forgets the job: get jobs reads it here).
      [self](finish_atom, FinishedJob& job) {
        const std::int64_t keep_until = job.finished_ms + self->state.keep_finished.count();
        wake_for_expiry(self,
                        job.expires_ms > 0 ? std::min(job.expires_ms, keep_until) : keep_until);
        auto committed = self->make_response_promise<bool>();
        queue_write(
            self, [job = std::move(job)](JobStore& store) { store.finish(job); }, false, committed);
        return committed;
      },
      [self](history_atom, std::uint64_t wake) { expire_ended(self, wake); },
      [self](history_atom, const ReplyTo& to, const protocol::DeleteRequest& request) {
        answer(self->state, to, delete_ended(self->state, to, request.name));
      },
      // gantryctl get hubs: a read of the store (etcd's presence records).
      [self](const ReplyTo& to, const protocol::ListRequest&) {
        protocol::ListReply reply;
        try {
          reply.hubs = self->state.store->hubs();
        } catch (const std::exception& e) {
          reply.ok = false;
          reply.error = std::string("the hubs on the store cannot be read: ") + e.what();
        }
        answer(self->state, to, reply);
      },
      [self](history_atom, const ReplyTo& to, protocol::ListReply& reply) {
        add_ended_jobs(self->state, reply);
        answer(self->state, to, reply);
      },
      // gantryctl logs of an ended job: where it ran. ok = false when not kept.
      [self](history_atom, const std::string& name) -> protocol::DescribeReply {
        try {
          if (auto ended = history(self->state).describe(name)) return std::move(*ended);
        } catch (const std::exception& e) {
          spdlog::warn("ended job {} cannot be read: {}", name, e.what());
        }
        return protocol::DescribeReply{};
      },
      [self](history_atom, const ReplyTo& to, const protocol::DescribeRequest& request,
             protocol::DescribeReply& reply) {
        try {
          if (auto ended = history(self->state).describe(request.name)) reply = std::move(*ended);
        } catch (const std::exception& e) {
          reply.error += std::string(" (ended jobs cannot be read: ") + e.what() + ")";
        }
        answer(self->state, to, reply);
      },
      [self](finish_atom, std::int64_t row, const std::string& phase, std::int64_t finished_ms) {
        queue_write(self, [row, phase, finished_ms](JobStore& store) {
          store.finish(row, phase, finished_ms);
        });
      },
      [self](connect_atom, caf::actor listener) {
        self->state.told_of_health = std::move(listener);
      },
      [self](flush_atom) {
        // A retry's flush and a queued one are the same: commit what waits.
        self->state.retry_queued = false;
        flush(self);
      },
  };
}

}  // namespace

caf::actor spawn_store(caf::actor_system& system, std::shared_ptr<JobStore> store, bool detached,
                       OutboundSink& sink, Clock clock, std::chrono::milliseconds keep_finished,
                       std::shared_ptr<HubIoMetrics> metrics) {
  if (detached)
    return system.spawn<caf::detached>(store_actor, std::move(store), &sink, std::move(clock),
                                       keep_finished, std::move(metrics));
  return system.spawn(store_actor, std::move(store), &sink, std::move(clock), keep_finished,
                      std::move(metrics));
}

}  // namespace gantry::actors
