#include "actors/admin_replies.hpp"

#include <algorithm>
#include <optional>

#include "actors/core_views.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

hub::TimeMs seen(const LastSeen& last_seen, const std::string& cluster) {
  const auto found = last_seen.find(cluster);
  return found == last_seen.end() ? 0 : found->second;
}

// Each returns false when nothing has that name.
bool describe_job(const hub::SchedulerCore& core, const JobEvents& events, const std::string& name,
                  hub::TimeMs now, protocol::DescribeReply& answer) {
  const std::optional<hub::JobId> id = core.find_job(name);
  if (!id) return false;
  answer.job = job_info(core, *id, now);
  if (core.job(*id).spec) answer.spec = *core.job(*id).spec;
  answer.events = events.list(*id);
  return true;
}

bool describe_cluster(const hub::SchedulerCore& core, const std::string& name,
                      const LastSeen& last_seen, protocol::DescribeReply& answer) {
  const std::optional<hub::ClusterIndex> index = core.find_cluster(name);
  if (!index) return false;
  answer.cluster = cluster_info(core, *index, seen(last_seen, name));
  return true;
}

bool describe_queue(const hub::SchedulerCore& core, const std::string& name,
                    protocol::DescribeReply& answer) {
  const std::optional<hub::QueueIndex> index = core.find_queue(name);
  if (!index || !is_listed_queue(core, *index)) return false;
  answer.queue = queue_info(core, *index);
  answer.events = {queue_job_counts(core, *index)};  // QueueInfo has no field for counts
  return true;
}

}  // namespace

protocol::ListReply list_reply(const hub::SchedulerCore& core, const protocol::ListRequest& request,
                               const LastSeen& last_seen, hub::TimeMs now,
                               PendingScores pending_scores) {
  protocol::ListReply answer;
  if (request.kind == "jobs") {
    answer.jobs.reserve(core.job_count());
    for (hub::JobId id = 0; id < core.job_count(); ++id)
      if (!core.job(id).forgotten) answer.jobs.push_back(job_info(core, id, now, pending_scores));
  } else if (request.kind == "clusters") {
    for (hub::ClusterIndex i = 0; i < core.cluster_count(); ++i) {
      answer.clusters.push_back(cluster_info(core, i, seen(last_seen, core.cluster(i).name())));
    }
  } else if (request.kind == "queues") {
    for (hub::QueueIndex i = 0; i < core.queue_count(); ++i) {
      if (is_listed_queue(core, i)) answer.queues.push_back(queue_info(core, i));
    }
  } else {
    answer.ok = false;
    answer.error =
        "kind: unknown kind \"" + request.kind + "\" (expected jobs, clusters or queues)";
  }
  return answer;
}

protocol::ListReply events_reply(const JobEvents& events, const protocol::ListRequest& request) {
  protocol::ListReply answer;
  events.recent(
      0,
      [&](const protocol::EventInfo& event) {
        return (request.job.empty() || event.job == request.job) && event.at_ms >= request.since_ms;
      },
      answer.events);
  return answer;
}

namespace {

std::string task_names(const protocol::JobSpec& spec) {
  std::string names;
  for (const protocol::TaskSpec& task : spec.tasks)
    names += (names.empty() ? "" : ", ") + task.name;
  return names;
}

}  // namespace

std::string replica_cluster(const protocol::JobInfo& job, const protocol::JobSpec& spec,
                            protocol::LogsRequest& request, std::string& cluster) {
  if (request.task.empty() && !spec.tasks.empty()) request.task = spec.tasks.front().name;
  const bool known =
      std::any_of(spec.tasks.begin(), spec.tasks.end(),
                  [&](const protocol::TaskSpec& task) { return task.name == request.task; });
  if (!known)
    return "job \"" + request.job + "\" has no task \"" + request.task +
           "\" (its tasks: " + task_names(spec) + ")";
  if (job.parts.empty())
    return "job \"" + request.job + "\" has not been placed (" + job.phase +
           "): no replica has written a log";
  // Replica indices run over the parts in order (hub::DispatchPart::task_index_offset).
  std::int32_t first = 0;
  for (const protocol::JobPart& part : job.parts) {
    const auto found = part.task_replicas.find(request.task);
    first += found == part.task_replicas.end() ? 0 : found->second;
    if (request.replica < first) {
      cluster = part.cluster;
      return "";
    }
  }
  return "job \"" + request.job + "\" task " + request.task + " has " + std::to_string(first) +
         " replica(s) placed, numbered from 0: there is no replica " +
         std::to_string(request.replica);
}

protocol::DescribeReply describe_reply(const hub::SchedulerCore& core, const JobEvents& events,
                                       const protocol::DescribeRequest& request,
                                       const LastSeen& last_seen, hub::TimeMs now) {
  protocol::DescribeReply answer;
  if (request.kind == "job") {
    answer.ok = describe_job(core, events, request.name, now, answer);
  } else if (request.kind == "cluster") {
    answer.ok = describe_cluster(core, request.name, last_seen, answer);
  } else if (request.kind == "queue") {
    answer.ok = describe_queue(core, request.name, answer);
  } else {
    answer.error = "kind: unknown kind \"" + request.kind + "\" (expected job, cluster or queue)";
    return answer;
  }
  if (!answer.ok) answer.error = request.kind + " \"" + request.name + "\" not found";
  return answer;
}

FinishedJob finished_record(const hub::SchedulerCore& core, const JobEvents& events,
                            const LastSeen& last_seen, const hub::JobEnd& end, std::int64_t row,
                            hub::TimeMs now) {
  const hub::Job& job = core.job(end.job);
  FinishedJob finished;
  finished.row = row;
  finished.phase = std::string(hub::phase_name(end.phase));
  finished.finished_ms = end.at;
  finished.queue = core.queue_name(job.queue);
  finished.started_ms = job.started_ms;
  finished.gpu_milli = job.gang.total().get(hub::kGpu);
  if (job.ttl_after_finished_ms >= 0) finished.expires_ms = end.at + job.ttl_after_finished_ms;
  const protocol::DescribeReply record =
      describe_reply(core, events, protocol::DescribeRequest{"job", job.name}, last_seen, now);
  msgpack::sbuffer packed;
  msgpack::pack(packed, record);
  finished.record.assign(packed.data(), packed.size());
  return finished;
}

std::vector<std::string> operator_warnings(const std::string& store_degraded,
                                           const hub::HeldRuns& held) {
  std::vector<std::string> warnings;
  if (!store_degraded.empty()) warnings.push_back("the job store is degraded: " + store_degraded);
  std::map<std::string, std::vector<std::string>> held_jobs;  // by cluster
  for (const auto& [key, run] : held) held_jobs[key.first].push_back(run.job);
  for (const auto& [cluster, jobs] : held_jobs) {
    constexpr std::size_t kNamed = 5;
    std::string names;
    for (std::size_t i = 0; i < jobs.size() && i < kNamed; ++i)
      names += (i == 0 ? "" : ", ") + jobs[i];
    if (jobs.size() > kNamed) names += " and " + std::to_string(jobs.size() - kNamed) + " more";
    warnings.push_back("cluster " + cluster + " runs " + std::to_string(jobs.size()) +
                       " dispatch(es) from before this hub's state was made (jobs " + names +
                       "): held, not stopped; they run on until they end, `gantryctl drain "
                       "cluster " +
                       cluster + "` stops them (and cordons the cluster)");
  }
  return warnings;
}

}  // namespace gantry::actors
