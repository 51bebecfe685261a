// The elastic growth stage: see elastic_growth.hpp. Only the last part grows:
// replicas are numbered per task over the parts in order, so growing the last
// part keeps every replica's index (and the other parts' offsets).
#include "hub/elastic_growth.hpp"

#include <algorithm>
#include <vector>

#include "hub/elastic.hpp"
#include "hub/pass_session.hpp"

namespace gantry::hub {
namespace {

std::int32_t replicas_run(const Dispatch& dispatch, std::uint32_t task) {
  std::int32_t have = 0;
  for (std::size_t p = 0; p < dispatch.parts.size(); ++p)
    have += dispatch.part_replicas(p, task, false);
  return have;
}

bool all_parts_committed(const Dispatch& dispatch) {
  return std::all_of(dispatch.parts.begin(), dispatch.parts.end(),
                     [](const DispatchPart& part) { return part.state == PartState::kCommitted; });
}

// Places the missing replicas it can on the last part's cluster, then gives
// back the last placed while its queue's limits would be passed.
void grow(PassSession& session, const Dispatch& dispatch) {
  const Job& job = session.job(dispatch.job);
  ClusterState& cluster = session.clusters()[dispatch.parts.back().cluster];
  if (!cluster.ready() || cluster.cordoned()) return;
  if (!any_missing_replica_fits(dispatch, job.gang, cluster.total_free())) return;
  if (!session.fit(cluster, missing_replicas(dispatch, job.gang), dispatch.job,
                   session.policy_for(job)))
    return;
  std::vector<NodeAssignment>& placed = session.assignment();
  const ResourceVector cost = give_back_over_limits(
      cluster, job.gang, placed, 0,
      [&](const ResourceVector& amount) { return session.within_queue_limits(job.queue, amount); });
  if (!placed.empty()) session.start_growth(dispatch.id, cost);
}

}  // namespace

void grow_elastic(PassSession& session) {
  const TimeMs now = session.now();
  for (DispatchId id : session.elastic_below()) {
    const Dispatch& dispatch = session.dispatch(id);
    if (!dispatch.committed || !dispatch.growing.empty() || dispatch.grow_after > now) continue;
    if (all_parts_committed(dispatch)) grow(session, dispatch);
  }
}

GangShape missing_replicas(const Dispatch& dispatch, const GangShape& gang) {
  GangShape missing = gang;
  for (std::uint32_t t = 0; t < missing.tasks.size(); ++t)
    missing.tasks[t].replicas = std::max(0, gang.tasks[t].replicas - replicas_run(dispatch, t));
  missing.min_available = 1;  // as many as fit now
  return missing;
}

bool any_missing_replica_fits(const Dispatch& dispatch, const GangShape& gang,
                              const ResourceVector& free) {
  for (std::uint32_t t = 0; t < gang.tasks.size(); ++t)
    if (replicas_run(dispatch, t) < gang.tasks[t].replicas &&
        gang.tasks[t].per_replica.fits_in(free))
      return true;
  return false;
}

}  // namespace gantry::hub
