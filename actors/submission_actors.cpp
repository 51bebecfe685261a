// The submission path: the queue actor validates a Volcano Job (so a bad YAML
// never touches core state), has the store actor write it, and only then hands
// it to the scheduler, which acknowledges it.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "actors/admin_answer.hpp"
#include "actors/core_views.hpp"
#include "config/job_array.hpp"
#include "config/priority_class.hpp"
#include "config/volcano_job.hpp"
#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"
#include "hub/job_request.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

// An operator limited to some queues submits only to those (docs/security.md).
std::string queue_refusal(const ReplyTo& to, const std::string& queue) {
  if (to.role != Role::kOperator || to.queues.empty() ||
      std::find(to.queues.begin(), to.queues.end(), queue) != to.queues.end())
    return "";
  std::string listed;
  for (const std::string& allowed : to.queues) listed += (listed.empty() ? "" : ", ") + allowed;
  return "spec.queue: \"" + queue + "\" is not one of the queues of key \"" + to.key + "\" (" +
         listed + ")";
}

// Parses and checks a submission. Throws hub::FieldError (or another
// std::exception) whose message names the field and value.
// A job without spec.priorityClassName gets the globalDefault class.
hub::JobRequest resolved_request(protocol::JobSpec spec,
                                 const config::PriorityClassRegistry& classes) {
  if (spec.queue.empty()) spec.queue = std::string(kDefaultQueue);
  const std::optional<config::ResolvedPriority> resolved = classes.resolve(spec.priority_class);
  // Whether the queue exists, is open and is a leaf is the core's to say.
  hub::JobRequest request =
      hub::make_job_request(std::make_shared<const protocol::JobSpec>(std::move(spec)));
  request.may_preempt = !resolved || resolved->preempts;
  return request;
}

// One job's document. A job array is submitted with SubmitJobsRequest, which
// answers for each of its elements.
hub::JobRequest validate(const std::string& yaml, const config::PriorityClassRegistry& classes) {
  protocol::JobSpec spec = config::parse_volcano_job(yaml, classes.values());
  if (spec.annotations.count(config::kArrayAnnotation) != 0)
    throw hub::FieldError(std::string("metadata.annotations.") + config::kArrayAnnotation,
                          spec.annotations.at(config::kArrayAnnotation),
                          "a job array is submitted with gantryctl submit (SubmitJobsRequest), "
                          "which answers for each of its jobs");
  return resolved_request(std::move(spec), classes);
}

// A stored job as it was validated at submission: from its packed spec
// (its priority as resolved then, as Kubernetes keeps a pod's), else from
// its YAML (a job stored before specs were).
hub::JobRequest restored_request(const StoredJob& stored,
                                 const config::PriorityClassRegistry& classes) {
  if (stored.spec.empty())
    return resolved_request(config::parse_volcano_job(stored.yaml, classes.values()), classes);
  auto spec = std::make_shared<protocol::JobSpec>();
  msgpack::unpack(stored.spec.data(), stored.spec.size()).get().convert(*spec);
  const std::optional<config::ResolvedPriority> resolved = classes.resolve(spec->priority_class);
  hub::JobRequest request = hub::make_job_request(std::move(spec));
  request.may_preempt = !resolved || resolved->preempts;
  return request;
}

protocol::PriorityClassInfo class_info(const config::PriorityClass& priority_class) {
  return {priority_class.name,
          priority_class.value,
          priority_class.global_default,
          priority_class.preempts ? config::kPreemptLowerPriority : config::kPreemptNever,
          priority_class.description,
          priority_class.built_in};
}

// ------------------------------------------------------------------ queue

class Queue {
 public:
  Queue(caf::event_based_actor* self, OutboundSink& sink, Clock clock, caf::actor scheduler,
        caf::actor store, std::shared_ptr<config::PriorityClassRegistry> classes)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        scheduler_(std::move(scheduler)),
        store_(std::move(store)),
        classes_(std::move(classes)) {}

  caf::behavior behavior() {
    return {
        [this](const ReplyTo& to, const protocol::SubmitJobRequest& request) {
          on_submit(to, request.yaml);
        },
        [this](const ReplyTo& to, const protocol::SubmitJobsRequest& request) {
          on_submit_many(to, request.yamls);
        },
        [this](const StoredJob& stored) { on_restore(stored); },
        [this](const ReplyTo& to, const protocol::ApplyRequest& request) { on_apply(to, request); },
        [this](restore_atom, const protocol::ApplyRequest& stored) { on_restore_queue(stored); },
        [this](const ReplyTo& to, const protocol::DeleteRequest& request) {
          if (request.kind == "priorityclass") {
            delete_priority_class(to, request.name);
            return;
          }
          self_->send(scheduler_, to, request);
        },
        // Only "priorityclasses" is routed here: the registry lives with the queue actors.
        [this](const ReplyTo& to, const protocol::ListRequest&) {
          protocol::ListReply answer;
          for (const config::PriorityClass& priority_class : classes_->list())
            answer.priority_classes.push_back(class_info(priority_class));
          reply(to, answer);
        },
    };
  }

 private:
  template <class T>
  void reply(const ReplyTo& to, const T& message) {
    sink_.send(admin_answer(to, message));
  }

  void on_submit(const ReplyTo& to, const std::string& yaml) {
    hub::JobRequest request;
    try {
      request = validate(yaml, *classes_);
    } catch (const std::exception& e) {
      spdlog::info("submission refused: {}", e.what());
      reply(to, protocol::SubmitJobReply{false, "", e.what()});
      return;
    }
    if (std::string refusal = queue_refusal(to, request.queue); !refusal.empty()) {
      reply(to, protocol::SubmitJobReply{false, request.name, std::move(refusal)});
      return;
    }
    request.submitter = to.key;
    const hub::TimeMs submitted_ms = clock_();
    const std::string name = request.name;
    // Written before it is acknowledged, so an accepted job survives a restart.
    self_
        ->request(store_, caf::infinite, persist_atom_v, name, yaml, submitted_ms, to.key,
                  request.spec)
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

  // Each document validated on its own; the valid jobs recorded together
  // (one transaction where the store takes them in one) and handed to the
  // scheduler, which answers for all.
  void on_submit_many(const ReplyTo& to, const std::vector<std::string>& yamls) {
    if (yamls.size() > protocol::kMaxSubmitDocuments) {
      reply(to, protocol::SubmitJobsReply{
                    false,
                    "yamls: " + std::to_string(yamls.size()) + " documents exceed the limit of " +
                        std::to_string(protocol::kMaxSubmitDocuments) + " per request",
                    {}});
      return;
    }
    auto batch = std::make_shared<SubmissionBatch>();
    batch->to = to;
    for (std::size_t document = 0; document < yamls.size(); ++document)
      add_document(*batch, static_cast<std::int32_t>(document), yamls[document]);
    if (batch->valid.empty()) {
      reply(to, protocol::SubmitJobsReply{true, "", std::move(batch->results)});
      return;
    }
    batch->submitted_ms = clock_();
    // Written before they are acknowledged, so accepted jobs survive a restart.
    self_->request(store_, caf::infinite, persist_atom_v, batch)
        .then(
            [this, batch](std::vector<std::int64_t>& rows, std::vector<std::string>& errors) {
              batch->rows = std::move(rows);
              for (std::size_t i = 0; i < batch->valid.size(); ++i)
                if (batch->rows[i] == 0) refuse(*batch, i, "cannot record the job: " + errors[i]);
              self_->send(scheduler_, batch);
            },
            [this, batch](caf::error& error) {
              batch->rows.assign(batch->valid.size(), 0);
              for (std::size_t i = 0; i < batch->valid.size(); ++i)
                refuse(*batch, i, "cannot record the job: " + self_->system().render(error));
              reply(batch->to, protocol::SubmitJobsReply{true, "", std::move(batch->results)});
            });
  }

  // The jobs of one document (an array's elements, or itself), each valid
  // one among batch.valid; a refused document is one refused result.
  void add_document(SubmissionBatch& batch, std::int32_t document, const std::string& yaml) {
    std::vector<config::SubmittedDocumentJob> jobs;
    std::vector<hub::JobRequest> requests;
    try {
      jobs = config::read_job_document(yaml, classes_->values(),
                                       protocol::kMaxSubmitJobs - batch.results.size());
      requests.reserve(jobs.size());
      for (config::SubmittedDocumentJob& job : jobs)
        requests.push_back(resolved_request(std::move(job.spec), *classes_));
    } catch (const std::exception& e) {
      spdlog::info("submission refused: {}", e.what());
      batch.results.push_back({document, false, "", e.what()});
      return;
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
      hub::JobRequest& request = requests[i];
      if (std::string refusal = queue_refusal(batch.to, request.queue); !refusal.empty()) {
        batch.results.push_back({document, false, request.name, std::move(refusal)});
        continue;
      }
      request.submitter = batch.to.key;
      batch.results.push_back({document, false, request.name, ""});
      batch.valid.push_back(batch.results.size() - 1);
      batch.requests.push_back(std::move(request));
      batch.yamls.push_back(std::move(jobs[i].yaml));
    }
  }

  static void refuse(SubmissionBatch& batch, std::size_t valid, std::string error) {
    batch.results[batch.valid[valid]].error = std::move(error);
    batch.rows[valid] = 0;
  }

  void on_restore(const StoredJob& stored) {
    try {
      hub::JobRequest request = restored_request(stored, *classes_);
      // A generateName job comes back under the name the hub made for it.
      if (request.name.empty()) request.name = stored.name;
      request.submitter = stored.submitter;
      self_->send(scheduler_, restore_atom_v, std::move(request), stored.row, stored.submitted_ms,
                  stored.dispatch);
    } catch (const std::exception& e) {
      spdlog::error("job {} from the store is no longer valid and is dropped: {}", stored.name,
                    e.what());
      self_->send(store_, finish_atom_v, stored.row, std::string(protocol::phase::kFailed),
                  clock_());
      self_->send(scheduler_, restore_atom_v, stored.row);  // counted as back: it will not come
    }
  }

  // A Volcano Queue reaches the scheduler parsed, with its YAML for the
  // store; one that does not parse never does. A PriorityClass stays here.
  void on_apply(const ReplyTo& to, const protocol::ApplyRequest& request) {
    hub::QueueSpec spec;
    try {
      const std::string kind = config::document_kind(request.yaml);
      if (kind == "PriorityClass") {
        apply_priority_class(to, request.yaml);
        return;
      }
      if (kind == "Job") {  // kubectl applies Jobs too: say where a Gantry job goes
        throw hub::FieldError("kind", kind,
                              "apply takes a Queue or a PriorityClass; a Job is submitted "
                              "(gantryctl submit -f FILE)");
      }
      spec = config::parse_volcano_queue(request.yaml);
    } catch (const std::exception& e) {
      reply(to, protocol::AdminResult{false, "", e.what()});
      return;
    }
    self_->send(scheduler_, to, std::move(spec), request.yaml);
  }

  // A queue from the store, before any job is restored into it.
  void on_restore_queue(const protocol::ApplyRequest& stored) {
    try {
      self_->send(scheduler_, restore_atom_v, config::parse_volcano_queue(stored.yaml));
    } catch (const std::exception& e) {
      spdlog::error("a queue from the store is no longer valid and is ignored: {}", e.what());
    }
  }

  // Recorded, then answered once committed: an acknowledged class outlives a
  // restart. Registered first, so a job naming it right after the answer is
  // accepted; a failed write takes a new class back out.
  void apply_priority_class(const ReplyTo& to, const std::string& yaml) {
    const config::PriorityClass priority_class = config::parse_priority_class(yaml);
    const bool created = classes_->apply(priority_class);
    const std::string name = priority_class.name;
    const std::string done = "priorityclass/" + name + (created ? " created" : " configured");
    self_->request(store_, caf::infinite, priority_class_atom_v, persist_atom_v, name, yaml)
        .then(
            [this, to, name, created, done](const std::string& error) {
              if (error.empty()) return reply(to, protocol::AdminResult{true, done, ""});
              if (created) classes_->remove(name);
              reply(to,
                    protocol::AdminResult{false, "", "cannot record the PriorityClass: " + error});
            },
            [this, to](caf::error& error) {
              reply(to, protocol::AdminResult{
                            false, "",
                            "cannot record the PriorityClass: " + self_->system().render(error)});
            });
  }

  void delete_priority_class(const ReplyTo& to, const std::string& name) {
    try {
      classes_->remove(name);
    } catch (const std::exception& e) {
      reply(to, protocol::AdminResult{false, "", e.what()});
      return;
    }
    self_->request(store_, caf::infinite, priority_class_atom_v, forget_atom_v, name)
        .then(
            [this, to, name](const std::string& error) {
              if (error.empty())
                return reply(to,
                             protocol::AdminResult{true, "priorityclass/" + name + " deleted", ""});
              reply(to,
                    protocol::AdminResult{false, "", "cannot forget the PriorityClass: " + error});
            },
            [this, to](caf::error& error) {
              reply(to, protocol::AdminResult{
                            false, "",
                            "cannot forget the PriorityClass: " + self_->system().render(error)});
            });
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  caf::actor scheduler_;
  caf::actor store_;
  std::shared_ptr<config::PriorityClassRegistry> classes_;
};

struct QueueState {
  std::unique_ptr<Queue> queue;
  static inline const char* name = "gantry.queue";
};

caf::behavior queue_actor(caf::stateful_actor<QueueState>* self, OutboundSink* sink, Clock clock,
                          caf::actor scheduler, caf::actor store,
                          std::shared_ptr<config::PriorityClassRegistry> classes) {
  self->state.queue = std::make_unique<Queue>(self, *sink, std::move(clock), std::move(scheduler),
                                              std::move(store), std::move(classes));
  return self->state.queue->behavior();
}

}  // namespace

caf::actor spawn_queue(caf::actor_system& system, OutboundSink& sink, Clock clock,
                       caf::actor scheduler, caf::actor store,
                       std::shared_ptr<config::PriorityClassRegistry> classes) {
  return system.spawn(queue_actor, &sink, std::move(clock), std::move(scheduler), std::move(store),
                      std::move(classes));
}

}  // namespace gantry::actors
