#include "actors/decision_frames.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "actors/core_views.hpp"
#include "protocol/envelope.hpp"
#include "support/log_fields.hpp"

namespace gantry::actors {

namespace {

std::int64_t row_of(const std::vector<std::int64_t>& store_rows, hub::JobId job) {
  return job < store_rows.size() ? store_rows[job] : 0;
}

std::string cluster_names(const hub::SchedulerCore& core, const hub::Dispatch& dispatch) {
  std::string names;
  for (const hub::DispatchPart& part : dispatch.parts)
    names += (names.empty() ? "" : ", ") + core.cluster(part.cluster).name();
  return names;
}

// "east (worker x12), west (worker x4)": each part's replicas per task, as
// describe's Placement shows them.
std::string part_replicas_text(const hub::SchedulerCore& core, const hub::Dispatch& dispatch) {
  const hub::Job& job = core.job(dispatch.job);
  std::string text;
  for (std::size_t part = 0; part < dispatch.parts.size(); ++part) {
    std::string tasks;
    for (std::uint32_t t = 0; t < job.gang.tasks.size(); ++t) {
      const std::int32_t replicas = dispatch.part_replicas(part, t, false);
      if (replicas > 0)
        tasks +=
            (tasks.empty() ? "" : ", ") + job.gang.tasks[t].name + " x" + std::to_string(replicas);
    }
    text += (text.empty() ? "" : ", ") + core.cluster(dispatch.parts[part].cluster).name() + " (" +
            tasks + ")";
  }
  return text;
}

// "; scores: east 870, west 420": how the job's policy ranked the clusters
// when it was placed, best first (at most the first five); "" without ranks.
std::string scores_text(const hub::SchedulerCore& core, const hub::Job& job) {
  if (!job.placement_notes || job.placement_notes->last_scores.empty()) return "";
  constexpr std::size_t kShown = 5;
  const std::vector<hub::ClusterRank>& ranks = job.placement_notes->last_scores;
  std::string text = "; scores: ";
  for (std::size_t i = 0; i < std::min(ranks.size(), kShown); ++i)
    text += (i == 0 ? "" : ", ") + core.cluster(ranks[i].cluster).name() + " " +
            std::to_string(ranks[i].score);
  if (ranks.size() > kShown) text += ", ...";
  return text;
}

// Who the eviction made room for: a reclaim when another queue's job takes
// the place (Volcano's reclaim action), a preemption within the queue.
std::string eviction_cause(const hub::SchedulerCore& core, hub::JobId victim) {
  const hub::Job& job = core.job(victim);
  const hub::PendingReason& reason = core.pending_reason(job);
  if (reason.kind != hub::PendingReason::Kind::kPreempted) return "to make room";
  const hub::Job& taker = core.job(reason.by_job);
  const std::string& queue = core.queues().node(taker.queue).spec.name;
  if (taker.queue != job.queue) return "reclaimed by queue " + queue + " for job " + taker.name;
  return "preempted by job " + taker.name + " (priority " + std::to_string(taker.priority) + " > " +
         std::to_string(job.priority) + ")";
}

// The Resize of the dispatch's part on the decision's cluster (docs/elastic.md):
// its replicas per task after the change and, for a growth, where the added
// ones go.
std::optional<protocol::Resize> resize_message(const hub::SchedulerCore& core,
                                               const hub::Decision& decision) {
  const hub::Dispatch* dispatch = core.find_dispatch(decision.dispatch);
  if (dispatch == nullptr || dispatch->parts.back().cluster != decision.cluster)
    return std::nullopt;
  const hub::Job& job = core.job(decision.job);
  const std::size_t part = dispatch->parts.size() - 1;
  const hub::ClusterState& cluster = core.cluster(decision.cluster);
  protocol::Resize resize;
  resize.dispatch_id = dispatch->id;
  resize.job = job.name;
  resize.part = static_cast<std::int32_t>(part);
  resize.elastic_epoch = dispatch->elastic_epoch;
  for (std::uint32_t t = 0; t < job.gang.tasks.size(); ++t)
    resize.task_replicas[job.gang.tasks[t].name] = dispatch->part_replicas(part, t, true);
  for (const hub::NodeAssignment& entry : dispatch->growing)
    resize.nodes.push_back(
        protocol::PlacedReplica{job.gang.tasks[entry.task].name, cluster.node(entry.node).name});
  resize.world_size = dispatch->world_size + static_cast<std::int32_t>(dispatch->growing.size());
  return resize;
}

void add_resize(const hub::SchedulerCore& core, const hub::Decision& decision, JobEvents& events,
                hub::TimeMs at, PassFrames& out) {
  std::optional<protocol::Resize> resize = resize_message(core, decision);
  if (!resize) return;
  const std::string& cluster = core.cluster(decision.cluster).name();
  events.add(decision.job, at,
             "elastic: resizing to " + std::to_string(resize->world_size) + " replica(s) on " +
                 cluster + " (elastic epoch " + std::to_string(resize->elastic_epoch) + ")");
  out.resizes.emplace_back(cluster, std::move(*resize));
}

// The core has already requeued the job; its agent must stop its part.
void add_eviction(const hub::SchedulerCore& core, const hub::Decision& decision, JobEvents& events,
                  hub::TimeMs at, PassFrames& out) {
  const std::string& job = core.job(decision.job).name;
  const std::string& cluster = core.cluster(decision.cluster).name();
  out.evictions.push_back(StopOrder{cluster, decision.dispatch, job, false, 0, ""});
  events.add(decision.job, at,
             "evicted from " + cluster + ": " + eviction_cause(core, decision.job) + "; requeued");
  const support::LogScope log_scope(
      {.job = job, .cluster = cluster, .dispatch = decision.dispatch});
  spdlog::info("job {}: evicted from cluster {}", job, cluster);
}

void add_dispatch(const hub::SchedulerCore& core, const hub::Decision& decision,
                  const std::vector<std::int64_t>& store_rows, JobEvents& events, hub::TimeMs at,
                  PassFrames& out) {
  const hub::Dispatch* dispatch = core.find_dispatch(decision.dispatch);
  if (dispatch == nullptr) return;  // evicted later in the same pass
  const std::string& job = core.job(decision.job).name;
  out.records.push_back(dispatch_record(core, *dispatch, row_of(store_rows, dispatch->job)));
  for (std::size_t part = 0; part < dispatch->parts.size(); ++part) {
    out.prepares.push_back(PartFrame{core.cluster(dispatch->parts[part].cluster).name(),
                                     dispatch->id, job, static_cast<std::int32_t>(part), false,
                                     protocol::encode(prepare_message(core, *dispatch, part))});
  }
  events.add(decision.job, at,
             "dispatched to " + part_replicas_text(core, *dispatch) +
                 scores_text(core, core.job(decision.job)));
  // Only when logged: the names are built for nothing otherwise, on every dispatch.
  if (!spdlog::should_log(spdlog::level::debug)) return;
  // One cluster's name: a split dispatch's line names them all.
  const std::string_view cluster =
      dispatch->parts.size() == 1
          ? std::string_view(core.cluster(dispatch->parts[0].cluster).name())
          : std::string_view();
  const support::LogScope log_scope({.job = job, .cluster = cluster, .dispatch = dispatch->id});
  spdlog::debug("job {}: dispatch {} to cluster(s) {}", job, dispatch->id,
                cluster_names(core, *dispatch));
}

// The index of the part of `dispatch` on `cluster`, for an Abort (the agent
// knows its part by the dispatch id; the index is informative). Exact while
// the core holds the dispatch; once released (a reject, a lost cluster), the
// job's last placement says it, unless the job was placed again since; else 0.
std::int32_t part_index(const hub::SchedulerCore& core, hub::DispatchId id,
                        const std::string& job_name, const std::string& cluster) {
  const std::optional<hub::ClusterIndex> index = core.find_cluster(cluster);
  if (!index) return 0;
  const auto position = [&](const auto& parts) -> std::int32_t {
    for (std::size_t part = 0; part < parts.size(); ++part)
      if (parts[part].cluster == *index) return static_cast<std::int32_t>(part);
    return 0;
  };
  if (const hub::Dispatch* dispatch = core.find_dispatch(id)) return position(dispatch->parts);
  const std::optional<hub::JobId> job = core.find_job(job_name);
  if (!job || core.job(*job).dispatch != 0 || !core.job(*job).placement_notes) return 0;
  return position(core.job(*job).placement_notes->parts);
}

}  // namespace

PassFrames pass_frames(const hub::SchedulerCore& core, std::span<const hub::Decision> decisions,
                       const std::vector<std::int64_t>& store_rows, JobEvents& events,
                       hub::TimeMs at) {
  PassFrames out;
  for (const hub::Decision& decision : decisions) {
    switch (decision.kind) {
      case hub::Decision::Kind::kResize:
        add_resize(core, decision, events, at, out);
        break;
      case hub::Decision::Kind::kEvict:
        add_eviction(core, decision, events, at, out);
        break;
      case hub::Decision::Kind::kDispatch:
        add_dispatch(core, decision, store_rows, events, at, out);
        break;
    }
  }
  return out;
}

std::vector<StopOrder> stop_orders(const hub::SchedulerCore& core, hub::Outbox& out) {
  std::vector<StopOrder> orders;
  orders.reserve(out.cancels.size() + out.aborts.size());
  for (hub::AgentCancel& cancel : out.cancels)
    orders.push_back(
        StopOrder{std::move(cancel.cluster), cancel.dispatch, std::move(cancel.job), false, 0, ""});
  for (hub::AgentCancel& abort : out.aborts) {
    const std::int32_t part = part_index(core, abort.dispatch, abort.job, abort.cluster);
    orders.push_back(StopOrder{std::move(abort.cluster), abort.dispatch, std::move(abort.job), true,
                               part, std::move(abort.reason)});
  }
  return orders;
}

CommitFrames commit_frames(const hub::SchedulerCore& core,
                           const std::vector<hub::DispatchId>& commits,
                           const std::vector<std::int64_t>& store_rows) {
  CommitFrames out;
  for (hub::DispatchId id : commits) {
    const hub::Dispatch* dispatch = core.find_dispatch(id);
    if (dispatch == nullptr) continue;
    out.records.push_back(dispatch_record(core, *dispatch, row_of(store_rows, dispatch->job)));
    const std::string& job = core.job(dispatch->job).name;
    for (std::size_t part = 0; part < dispatch->parts.size(); ++part) {
      out.frames.push_back(PartFrame{core.cluster(dispatch->parts[part].cluster).name(), id, job,
                                     static_cast<std::int32_t>(part), true,
                                     protocol::encode(commit_message(core, *dispatch, part))});
    }
  }
  return out;
}

void log_line(const hub::LogLine& line) {
  switch (line.level) {
    case hub::LogLine::Level::kInfo:
      spdlog::info(line.text);
      break;
    case hub::LogLine::Level::kWarn:
      spdlog::warn(line.text);
      break;
    case hub::LogLine::Level::kError:
      spdlog::error(line.text);
      break;
  }
}

DispatchRecord dispatch_record(const hub::SchedulerCore& core, const hub::Dispatch& dispatch,
                               std::int64_t row) {
  DispatchRecord record;
  record.row = row;
  record.dispatch.id = dispatch.id;
  record.dispatch.committed = dispatch.committed;
  for (const hub::DispatchPart& part : dispatch.parts)
    record.dispatch.clusters.push_back(core.cluster(part.cluster).name());
  record.dispatch.rendezvous_host = dispatch.rendezvous_host;
  record.dispatch.rendezvous_port = dispatch.rendezvous_port;
  return record;
}

}  // namespace gantry::actors
