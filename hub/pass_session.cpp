// PassSession's view of SchedulerCore: each call reads or runs one member.
#include "hub/pass_session.hpp"

#include "hub/scheduler.hpp"

namespace gantry::hub {

TimeMs PassSession::now() const {
  return core_.pass_.now;
}

const Job& PassSession::job(JobId id) const {
  return core_.jobs_[id];
}

std::span<ClusterState> PassSession::clusters() {
  return core_.clusters_;
}

const PlacementPolicy& PassSession::default_policy() const {
  return core_.policy();
}

const SlaWatch& PassSession::sla_watch() const {
  return core_.sla_watch_;
}

bool PassSession::attempt(JobId id) {
  return core_.attempt(id, core_.pass_.now);
}

bool PassSession::reserve(JobId id) {
  return core_.options_.reservations > 0 && !core_.reserved_in_pass(id) && core_.reserve(id);
}

}  // namespace gantry::hub
