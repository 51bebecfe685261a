// The reconciler's test harness: a CoreHarness whose core hands out this
// hub's dispatch ids above an earlier hub's, a Reconciler driving it, and
// checks on what the reconciler put in its Outbox.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "hub/reconciler.hpp"
#include "tests/core/core_harness.hpp"

namespace gantry::hub::testing {

// This hub's ids start here; kEarlierHubsId is one an earlier hub handed out.
inline constexpr DispatchId kThisHubsFirstId = DispatchId{2} << 40;
inline constexpr DispatchId kEarlierHubsId = 7;

inline bool has_event(const Outbox& out, JobId job, const std::string& text) {
  return std::any_of(out.events.begin(), out.events.end(), [&](const JobEvent& event) {
    return event.job == job && event.text.find(text) != std::string::npos;
  });
}

// The clusters a list of agent orders goes to, in order.
inline std::vector<std::string> clusters_of(const std::vector<AgentCancel>& orders) {
  std::vector<std::string> out;
  for (const AgentCancel& order : orders) out.push_back(order.cluster);
  return out;
}

class ReconcilerHarness : public CoreHarness {
 protected:
  ReconcilerHarness() : CoreHarness(options()), reconciler(core) { now = 5'000; }
  static SchedulerOptions options() {
    SchedulerOptions options;
    options.first_dispatch_id = kThisHubsFirstId + 1;
    return options;
  }

  Reconciler reconciler;
};

}  // namespace gantry::hub::testing
