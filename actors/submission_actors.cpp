// The submission path: the queue actor validates a Volcano Job (so a bad YAML
// never touches core state), has the store actor write it, and only then hands
// it to the scheduler, which acknowledges it.
#include <spdlog/spdlog.h>

#include <exception>
#include <memory>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "actors/core_views.hpp"
#include "config/volcano_job.hpp"
#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

// Parses and checks a submission. Throws hub::FieldError (or another
// std::exception) whose message names the field and value.
hub::JobRequest validate(const std::string& yaml) {
  protocol::JobSpec spec = config::parse_volcano_job(yaml);
  if (spec.queue.empty()) spec.queue = std::string(kDefaultQueue);
  // Whether the queue exists, is open and is a leaf is the core's to say.
  return hub::make_job_request(std::make_shared<const protocol::JobSpec>(std::move(spec)));
}

// ------------------------------------------------------------------ queue

class Queue {
 public:
  Queue(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor scheduler,
        caf::actor store)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        scheduler_(std::move(scheduler)),
        store_(std::move(store)) {}

  caf::behavior behavior() {
    return {
        [this](const ReplyTo& to, const protocol::SubmitJobRequest& request) {
          on_submit(to, request.yaml);
        },
        [this](const StoredJob& stored) { on_restore(stored); },
        [this](const ReplyTo& to, const protocol::ApplyRequest& request) { on_apply(to, request); },
        [this](const ReplyTo& to, const protocol::DeleteRequest& request) {
          self_->send(scheduler_, to, request);
        },
    };
  }

 private:
  template <class T>
  void reply(const ReplyTo& to, const T& message) {
    sink_.send(OutboundFrame{Channel::kAdmin, to.peer, protocol::encode(message, to.seq), 0});
  }

  void on_submit(const ReplyTo& to, const std::string& yaml) {
    hub::JobRequest request;
    try {
      request = validate(yaml);
    } catch (const std::exception& e) {
      spdlog::info("submission refused: {}", e.what());
      reply(to, protocol::SubmitJobReply{false, "", e.what()});
      return;
    }
    const hub::TimeMs submitted_ms = clock_();
    const std::string name = request.name;
    // Written before it is acknowledged, so an accepted job survives a restart.
    self_->request(store_, caf::infinite, persist_atom_v, name, yaml, submitted_ms)
        .then(
            [this, to, request, submitted_ms](std::int64_t row, const std::string& error) mutable {
              if (row == 0) {
                reply(to, protocol::SubmitJobReply{false, request.name,
                                                   "cannot record the job: " + error});
                return;
              }
              self_->send(scheduler_, to, std::move(request), row, submitted_ms);
            },
            [this, to, name](caf::error& error) {
              reply(to,
                    protocol::SubmitJobReply{
                        false, name, "cannot record the job: " + self_->system().render(error)});
            });
  }

  void on_restore(const StoredJob& stored) {
    try {
      self_->send(scheduler_, restore_atom_v, validate(stored.yaml), stored.row,
                  stored.submitted_ms, stored.dispatch);
    } catch (const std::exception& e) {
      spdlog::error("job {} from the store is no longer valid and is dropped: {}", stored.name,
                    e.what());
      self_->send(store_, finish_atom_v, stored.row, std::string(protocol::phase::kFailed),
                  clock_());
    }
  }

  // A Volcano Queue that does not parse never reaches the scheduler.
  void on_apply(const ReplyTo& to, const protocol::ApplyRequest& request) {
    try {
      config::parse_volcano_queue(request.yaml);
    } catch (const std::exception& e) {
      reply(to, protocol::AdminResult{false, "", e.what()});
      return;
    }
    self_->send(scheduler_, to, request);
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  caf::actor scheduler_;
  caf::actor store_;
};

struct QueueState {
  std::unique_ptr<Queue> queue;
  static inline const char* name = "gantry.queue";
};

caf::behavior queue_actor(caf::stateful_actor<QueueState>* self, OutboundSink* sink, Clock clock,
                          caf::actor scheduler, caf::actor store) {
  self->state.queue = std::make_unique<Queue>(self, *sink, std::move(clock), std::move(scheduler),
                                              std::move(store));
  return self->state.queue->behavior();
}

}  // namespace

caf::actor spawn_queue(caf::actor_system& system, OutboundSink& sink, Clock clock,
                       caf::actor scheduler, caf::actor store) {
  return system.spawn(queue_actor, &sink, std::move(clock), std::move(scheduler), std::move(store));
}

}  // namespace gantry::actors
