#include "actors/scheduler_admin.hpp"

#include <spdlog/spdlog.h>

#include <optional>

#include "actors/core_views.hpp"

namespace gantry::actors {

caf::message_handler SchedulerAdmin::handlers() {
  return {
      [this](const ReplyTo& to, const protocol::ListRequest& request) { list(to, request); },
      [this](const ReplyTo& to, protocol::LogsRequest& request) { logs(to, request); },
      [this](const ReplyTo& to, const protocol::DescribeRequest& request) {
        describe(to, request);
      },
      [this](const ReplyTo& to, const protocol::CancelRequest& request) { cancel(to, request); },
      [this](const ReplyTo& to, const protocol::DeleteRequest& request) { remove(to, request); },
      [this](const ReplyTo& to, const protocol::ClusterActionRequest& request) {
        cluster_action(to, request);
      },
      [this](const ReplyTo& to, const hub::QueueSpec& spec, const std::string& yaml) {
        ctx_.reply_once_stored(to, apply_queue(spec, &yaml));
      },
      [this](restore_atom, const hub::QueueSpec& spec) { apply_queue(spec, nullptr); },
  };
}

// Ended jobs the core has forgotten (a restart, their retention) are added
// by the store, which answers.
void SchedulerAdmin::list(const ReplyTo& to, const protocol::ListRequest& request) {
  if (request.watch) {
    std::string refused = ctx_.watch.add(to, request, ctx_.objects.events(), ctx_.now());
    if (!refused.empty()) {
      protocol::ListReply refusal;
      refusal.ok = false;
      refusal.error = std::move(refused);
      ctx_.reply(to, refusal);
      return;
    }
    ctx_.arm_watch();
  }
  protocol::ListReply answer = request.kind == "events"
                                   ? events_reply(ctx_.objects.events(), request)
                                   : list_reply(ctx_.core, request, ctx_.last_seen, ctx_.now());
  answer.warnings = ctx_.operator_warnings();
  if (request.kind == "jobs" && answer.ok) {
    ctx_.self->send(ctx_.store, history_atom_v, to, std::move(answer));
    return;
  }
  ctx_.reply(to, answer);
}

// The agent of the cluster that runs the replica reads its log; the
// dispatcher, which knows that agent, passes the chunks on (actors/log_relay.hpp).
// An ended job the core released is asked of the store, which keeps where
// it ran (as kubectl logs reads a completed pod's).
void SchedulerAdmin::logs(const ReplyTo& to, protocol::LogsRequest& request) {
  const std::optional<hub::JobId> id = ctx_.core.find_job(request.job);
  if (id && !ctx_.core.job(*id).forgotten) {
    const hub::Job& job = ctx_.core.job(*id);
    relay_logs(to, request, job_info(ctx_.core, *id, ctx_.now()),
               job.spec ? *job.spec : protocol::JobSpec{});
    return;
  }
  ctx_.self->request(ctx_.store, caf::infinite, history_atom_v, request.job)
      .then(
          [this, to, request](protocol::DescribeReply& ended) mutable {
            if (!ended.ok) {
              ctx_.reply(to,
                         protocol::LogsChunk{0, "", true, "job \"" + request.job + "\" not found"});
              return;
            }
            relay_logs(to, request, ended.job, ended.spec);
          },
          [](const caf::error&) {});  // the store is gone: the hub stops
}

void SchedulerAdmin::relay_logs(const ReplyTo& to, protocol::LogsRequest& request,
                                const protocol::JobInfo& job, const protocol::JobSpec& spec) {
  std::string refusal;
  if (to.role == Role::kOperator && job.submitter != to.key)
    refusal = "job \"" + request.job + "\" was submitted by \"" + job.submitter + "\": key \"" +
              to.key + "\" (operator) may read the logs of its own jobs only";
  std::string cluster;
  if (refusal.empty()) refusal = replica_cluster(job, spec, request, cluster);
  if (!refusal.empty()) {
    ctx_.reply(to, protocol::LogsChunk{0, "", true, std::move(refusal)});
    return;
  }
  ctx_.self->send(ctx_.dispatcher, cluster, to, std::move(request));
}

void SchedulerAdmin::describe(const ReplyTo& to, const protocol::DescribeRequest& request) {
  protocol::DescribeReply answer =
      describe_reply(ctx_.core, ctx_.objects.events(), request, ctx_.last_seen, ctx_.now());
  answer.warnings = ctx_.operator_warnings();
  if (request.kind == "job" && !answer.ok) {
    ctx_.self->send(ctx_.store, history_atom_v, to, request, std::move(answer));
    return;
  }
  ctx_.reply(to, answer);
}

void SchedulerAdmin::cancel(const ReplyTo& to, const protocol::CancelRequest& request) {
  std::string refusal = not_own_job(to, request.name);
  if (refusal.empty()) refusal = cancel_job(request);
  if (!refusal.empty()) {
    ctx_.reply(to, protocol::AdminResult{false, "", std::move(refusal)});
    return;
  }
  ctx_.reply(to, protocol::AdminResult{true, "job/" + request.name + " cancelled", ""});
}

// "" once cancelled, else why not.
std::string SchedulerAdmin::cancel_job(const protocol::CancelRequest& request) {
  if (request.kind != "job") return "kind: cannot cancel a \"" + request.kind + "\" (only jobs)";
  if (std::string ended = ctx_.ended_phase(request.name); !ended.empty())
    return "job \"" + request.name + "\" has already ended (" + ended + ")";
  ctx_.outbox.clear();
  const std::optional<std::string> refused =
      ctx_.reconciler.cancel(request.name, ctx_.now(), ctx_.outbox);
  ctx_.carry_out(ctx_.outbox);
  return refused.value_or("");
}

void SchedulerAdmin::remove(const ReplyTo& to, const protocol::DeleteRequest& request) {
  if (request.kind == "job" && !ctx_.core.find_job(request.name)) {
    ctx_.self->send(ctx_.store, history_atom_v, to, request);  // ended, known to the store only
    return;
  }
  if (request.kind == "job") {
    if (std::string refusal = not_own_job(to, request.name); !refusal.empty()) {
      ctx_.reply(to, protocol::AdminResult{false, "", std::move(refusal)});
      return;
    }
    ctx_.reply_once_stored(to, delete_job(request.name));
  } else if (request.kind == "queue") {
    ctx_.reply_once_stored(to, delete_queue(request.name));
  } else {
    ctx_.reply(to, protocol::AdminResult{
                       false, "", "kind: cannot delete a \"" + request.kind + "\" (only queues)"});
  }
}

// A pending or finished job is forgotten at once; a running one is cancelled
// first and forgotten once its parts stopped.
protocol::AdminResult SchedulerAdmin::delete_job(const std::string& name) {
  const hub::JobId id = *ctx_.core.find_job(name);
  const hub::TimeMs at = ctx_.now();
  ForgottenRows forgotten;
  const bool gone = ctx_.objects.remove(id, at, forgotten);
  ctx_.forget(forgotten);
  if (gone) return {true, "job/" + name + " deleted", ""};
  if (!hub::is_terminal(ctx_.core.job(id).phase)) {
    ctx_.outbox.clear();
    ctx_.reconciler.cancel(name, at, ctx_.outbox);
    ctx_.carry_out(ctx_.outbox);
  }
  if (!ctx_.core.job(id).forgotten)
    ctx_.objects.events().add(id, at, "deleted: forgotten once its replicas have stopped");
  return {true, "job/" + name + " deleted", ""};
}

protocol::AdminResult SchedulerAdmin::delete_queue(const std::string& name) {
  try {
    ctx_.core.delete_queue(name);
    ctx_.self->send(ctx_.store, forget_atom_v, name);
    ctx_.request_pass();
    return {true, "queue/" + name + " deleted", ""};
  } catch (const std::exception& e) {
    return {false, "", e.what()};
  }
}

// Creates or updates a queue; its YAML, when given, is recorded so that it
// outlives a restart (a restored queue's already is).
protocol::AdminResult SchedulerAdmin::apply_queue(const hub::QueueSpec& spec,
                                                  const std::string* yaml) {
  try {
    const bool existed = ctx_.core.find_queue(spec.name).has_value();
    ctx_.core.apply_queue(spec);
    if (yaml != nullptr) ctx_.self->send(ctx_.store, persist_atom_v, spec.name, *yaml);
    ctx_.request_pass();  // shares moved: jobs may fit now
    return {true, "queue/" + spec.name + (existed ? " configured" : " created"), ""};
  } catch (const std::exception& e) {
    spdlog::info("queue refused: {}", e.what());
    return {false, "", e.what()};
  }
}

// An operator cancels and deletes only the jobs its key submitted
// (docs/security.md); "" when `to` may.
std::string SchedulerAdmin::not_own_job(const ReplyTo& to, const std::string& name) const {
  if (to.role != Role::kOperator) return "";
  const std::optional<hub::JobId> id = ctx_.core.find_job(name);
  if (!id) return "";  // the answer says it is not found
  const std::string& submitter = ctx_.core.job(*id).submitter;
  if (submitter == to.key) return "";
  return "job \"" + name + "\" was submitted by \"" + submitter + "\": key \"" + to.key +
         "\" (operator) may cancel and delete only its own jobs";
}

// Cordon, uncordon or drain; the cordon is recorded before the answer.
void SchedulerAdmin::cluster_action(const ReplyTo& to,
                                    const protocol::ClusterActionRequest& request) {
  const std::string& name = request.name;
  const hub::TimeMs at = ctx_.now();
  std::optional<std::string> refused;
  std::string done;
  ctx_.outbox.clear();
  if (request.action == "cordon" || request.action == "uncordon") {
    refused = ctx_.reconciler.cordon(name, request.action == "cordon", at, ctx_.outbox);
    done = "cluster/" + name + " " + request.action + "ed";
  } else if (request.action == "drain") {
    const std::optional<hub::ClusterIndex> index = ctx_.core.find_cluster(name);
    const std::size_t stopping = index ? ctx_.core.dispatches_on(*index).size() : 0;
    refused = ctx_.reconciler.drain(name, at, ctx_.outbox);
    done = "cluster/" + name + " drained: " + std::to_string(stopping) + " job(s) stopping";
  } else {
    ctx_.reply(to, protocol::AdminResult{false, "",
                                         "action: unknown action \"" + request.action +
                                             "\" (expected cordon, uncordon or drain)"});
    return;
  }
  ctx_.carry_out(ctx_.outbox);
  if (refused) {
    ctx_.reply(to, protocol::AdminResult{false, "", *refused});
    return;
  }
  const bool cordoned = request.action != "uncordon";
  ctx_.self->request(ctx_.store, caf::infinite, cordon_atom_v, name, cordoned)
      .then([this, to, done](const std::string& error) { answer_cluster_action(to, done, error); },
            [this, to, done](caf::error& error) {
              answer_cluster_action(to, done, ctx_.self->system().render(error));
            });
}

void SchedulerAdmin::answer_cluster_action(const ReplyTo& to, const std::string& done,
                                           const std::string& error) {
  if (error.empty()) {
    ctx_.reply(to, protocol::AdminResult{true, done, ""});
    return;
  }
  ctx_.reply(to,
             protocol::AdminResult{
                 false, "",
                 done + ", but the store could not record it (a restart forgets it): " + error});
}

}  // namespace gantry::actors
