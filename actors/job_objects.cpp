#include "actors/job_objects.hpp"

#include <algorithm>
#include <optional>

namespace gantry::actors {

bool is_stop(const std::string& phase) {
  return phase == protocol::phase::kCompleted || phase == protocol::phase::kFailed ||
         phase == protocol::phase::kAborted || phase == protocol::phase::kTerminated;
}

void JobObjects::accepted(hub::JobId id, std::int64_t row, hub::TimeMs submitted) {
  if (id >= rows_.size()) rows_.resize(id + 1, 0);
  rows_[id] = row;
  events_.add(id, submitted, "submitted");
}

void JobObjects::ended(const hub::JobEnd& end, hub::TimeMs now, ForgottenRows& forgotten) {
  std::vector<hub::JobId> jobs;
  retention_.finished(end.job, end.at, now, jobs);
  forget(jobs, forgotten);
}

void JobObjects::end_stored(hub::JobId id, std::int64_t row) {
  if (row == 0 || this->row(id) != row) return;  // deleted meanwhile
  if (!retention_.release(id)) return;
  events_.forget(id);
  rows_[id] = 0;  // the row stays: only a delete or its expiry removes it
}

bool JobObjects::remove(hub::JobId id, hub::TimeMs now, ForgottenRows& forgotten) {
  const hub::DispatchId dispatch = core_.job(id).dispatch;
  std::vector<hub::JobId> jobs;
  retention_.remove(id, dispatch, committed_parts(dispatch), now, now + stop_grace_ms_, jobs);
  forget(jobs, forgotten);
  return !jobs.empty();
}

// The clusters where the dispatch's replicas may run: committed parts that
// have not ended. An uncommitted part started nothing.
std::vector<hub::ClusterIndex> JobObjects::committed_parts(hub::DispatchId id) const {
  std::vector<hub::ClusterIndex> clusters;
  const hub::Dispatch* dispatch = core_.find_dispatch(id);
  if (dispatch == nullptr || !dispatch->committed) return clusters;
  for (const hub::DispatchPart& part : dispatch->parts)
    if (part.state != hub::PartState::kEnded) clusters.push_back(part.cluster);
  return clusters;
}

void JobObjects::part_stopped(hub::DispatchId dispatch, const std::string& cluster, hub::TimeMs now,
                              ForgottenRows& forgotten) {
  const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return;
  std::vector<hub::JobId> jobs;
  retention_.part_stopped(dispatch, *index, now, jobs);
  forget(jobs, forgotten);
}

void JobObjects::parts_listed(const protocol::Hello& hello, hub::TimeMs now,
                              ForgottenRows& forgotten) {
  const std::optional<hub::ClusterIndex> index = core_.find_cluster(hello.cluster);
  if (!index) return;
  for (hub::DispatchId id : retention_.stopping_on(*index)) {
    const bool listed =
        std::any_of(hello.running.begin(), hello.running.end(),
                    [id](const protocol::RunningDispatch& run) { return run.dispatch_id == id; });
    if (!listed) part_stopped(id, hello.cluster, now, forgotten);
  }
}

void JobObjects::cluster_gone(const std::string& cluster, hub::TimeMs now,
                              ForgottenRows& forgotten) {
  const std::optional<hub::ClusterIndex> index = core_.find_cluster(cluster);
  if (!index) return;
  std::vector<hub::JobId> jobs;
  retention_.cluster_gone(*index, now, jobs);
  forget(jobs, forgotten);
}

void JobObjects::expire(hub::TimeMs now, ForgottenRows& forgotten) {
  std::vector<hub::JobId> jobs;
  retention_.expire(now, jobs);
  forget(jobs, forgotten);
}

void JobObjects::forget(const std::vector<hub::JobId>& jobs, ForgottenRows& forgotten) {
  for (hub::JobId id : jobs) {
    events_.forget(id);
    if (row(id) == 0) continue;
    forgotten.push_back(rows_[id]);
    rows_[id] = 0;
  }
}

}  // namespace gantry::actors
