// What the hub tells Prometheus (docs/metrics.md): the queues' and clusters'
// state read from the core through the same views gantryctl gets (so a gauge
// and `gantryctl get -o json` agree), and the counters and histograms the
// scheduler actor keeps as passes run and agents answer. Pure: time and the
// pass's duration are passed in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/admin_replies.hpp"
#include "hub/scheduler.hpp"
#include "support/prometheus_text.hpp"

namespace gantry::actors {

// What the scheduler actor knows beside the core, at the time of a scrape.
struct HubHealth {
  bool recovering = false;
  std::string store_degraded;  // why the store keeps writes in memory; "" when it does not
};

// "" when the hub is ready to schedule (/readyz), else why not.
std::string not_ready_reason(const HubHealth& health);

class SchedulingMetrics {
 public:
  SchedulingMetrics();

  // One pass: its decisions at `at`, and how long schedule() took.
  void observe_pass(const hub::SchedulerCore& core, const std::vector<hub::Decision>& decisions,
                    hub::TimeMs at, double seconds);
  // An agent's answer to a Prepare.
  void prepare_answered(const std::string& cluster, bool admitted);

  std::string render(const hub::SchedulerCore& core, const LastSeen& last_seen, hub::TimeMs now,
                     const HubHealth& health) const;

 private:
  struct QueueCounters {
    std::uint64_t admissions = 0;
    std::uint64_t evictions = 0;
    std::optional<support::Histogram> wait;  // submission -> first placement
  };
  struct PrepareCounters {
    std::uint64_t admitted = 0;
    std::uint64_t refused = 0;
  };

  QueueCounters& queue(hub::QueueIndex index);
  void render_queues(support::PrometheusText& out, const hub::SchedulerCore& core) const;
  void render_clusters(support::PrometheusText& out, const hub::SchedulerCore& core,
                       const LastSeen& last_seen, hub::TimeMs now) const;
  void render_scheduling(support::PrometheusText& out) const;

  support::Histogram pass_seconds_;
  std::uint64_t decisions_[3] = {0, 0, 0};           // by hub::Decision::Kind
  std::vector<QueueCounters> queues_;                // by hub::QueueIndex
  std::map<std::string, PrepareCounters> prepares_;  // by cluster
};

}  // namespace gantry::actors
