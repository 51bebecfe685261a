// Pending jobs with an SLA waiting time (Volcano's sla-waiting-time), by
// deadline: what the starvation stage serves first in every pass.
#pragma once

#include <compare>
#include <cstdint>
#include <set>

#include "hub/job.hpp"

namespace gantry::hub {

class SlaWatch {
 public:
  struct Entry {
    TimeMs deadline;
    std::uint64_t sequence;  // the job's submission order breaks deadline ties
    JobId job;
    auto operator<=>(const Entry&) const = default;
  };
  using const_iterator = std::set<Entry>::const_iterator;

  // A job without an SLA waiting time is not watched.
  void add(const Job& job, JobId id) {
    if (job.sla_waiting_ms > 0) entries_.insert(Entry{job.sla_deadline(), job.sequence, id});
  }
  void remove(const Job& job, JobId id) {
    if (job.sla_waiting_ms > 0) entries_.erase(Entry{job.sla_deadline(), job.sequence, id});
  }

  // Earliest deadline first. Removing one entry keeps the others' iterators
  // valid (std::set), so a walk may start jobs as it goes.
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

 private:
  std::set<Entry> entries_;
};

}  // namespace gantry::hub
