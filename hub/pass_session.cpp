// PassSession's view of SchedulerCore: each call reads or runs one member.
#include "hub/pass_session.hpp"

#include "hub/elastic.hpp"
#include "hub/scheduler.hpp"

namespace gantry::hub {

TimeMs PassSession::now() const {
  return now_;
}

const Job& PassSession::job(JobId id) const {
  return core_.jobs_[id];
}

std::span<ClusterState> PassSession::clusters() {
  return core_.clusters_;
}

const Dispatch& PassSession::dispatch(DispatchId id) const {
  return core_.dispatches_.at(id);
}

const PlacementPolicy& PassSession::policy_for(const Job& job) const {
  return core_.policy_for(job);
}

const PlacementPolicy& PassSession::default_policy() const {
  return core_.policy();
}

const SlaWatch& PassSession::sla_watch() const {
  return core_.sla_watch_;
}

const std::set<DispatchId>& PassSession::elastic_below() const {
  return core_.elastic_below_;
}

bool PassSession::within_queue_limits(QueueIndex queue, const ResourceVector& amount) const {
  return hub::within_queue_limits(core_.queues_, queue, amount, core_.pass_.pool_free);
}

bool PassSession::fit(ClusterState& cluster, const GangShape& gang, JobId requester,
                      const PlacementPolicy& policy) {
  return core_.placer_.place(cluster, gang, core_.pass_.assignment, requester, &policy).fits;
}

std::vector<NodeAssignment>& PassSession::assignment() {
  return core_.pass_.assignment;
}

bool PassSession::attempt(JobId id) {
  return core_.attempt(id, now_);
}

bool PassSession::reserve(JobId id) {
  return core_.options_.reservations > 0 && !core_.reserved_in_pass(id) && core_.reserve(id);
}

void PassSession::start_growth(DispatchId id, const ResourceVector& amount) {
  core_.start_growth(core_.dispatches_.at(id), amount, now_);
}

}  // namespace gantry::hub
