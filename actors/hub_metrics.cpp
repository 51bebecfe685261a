#include "actors/hub_metrics.hpp"

#include <utility>

#include "actors/core_views.hpp"

namespace gantry::actors {

namespace {

using support::MetricLabels;
using support::PrometheusText;

// A pass takes microseconds to seconds: 50 µs to ~13 s, doubling.
constexpr double kFirstPassBound = 0.00005;
constexpr int kPassBuckets = 19;
// A job waits seconds to days: 1 s to ~3 days, doubling.
constexpr double kFirstWaitBound = 1;
constexpr int kWaitBuckets = 19;

constexpr const char* kDecisionKinds[] = {"dispatch", "evict", "resize"};

// kube-state-metrics' units for a resource label: CPU in cores, memory and
// storage in bytes, everything else a count.
const char* unit_of(const std::string& resource) {
  if (resource == "cpu") return "core";
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.rfind("hugepages-", 0) == 0)
    return "byte";
  return "integer";
}

// Quantities travel in milli-units; Prometheus wants base units.
double base_units(std::int64_t milli) {
  return static_cast<double>(milli) / 1000.0;
}

void resource_samples(PrometheusText& out, const char* name, const MetricLabels& owner,
                      const protocol::ResourceList& resources) {
  for (const auto& [resource, milli] : resources) {
    MetricLabels labels = owner;
    labels.emplace_back("resource", resource);
    labels.emplace_back("unit", unit_of(resource));
    out.sample(name, labels, base_units(milli));
  }
}

protocol::ResourceList free_of(const protocol::ClusterInfo& cluster) {
  protocol::ResourceList free = cluster.capacity;
  for (auto& [resource, milli] : free) {
    const auto allocated = cluster.allocated.find(resource);
    if (allocated != cluster.allocated.end()) milli -= allocated->second;
  }
  return free;
}

template <class Info, class Value>
void per_object(PrometheusText& out, const char* name, const char* type, const char* help,
                const char* label, const std::vector<Info>& objects, Value value) {
  out.family(name, type, help);
  for (const Info& object : objects) out.sample(name, {{label, object.name}}, value(object));
}

template <class Info, class List>
void per_resource(PrometheusText& out, const char* name, const char* help, const char* label,
                  const std::vector<Info>& objects, List list) {
  out.family(name, "gauge", help);
  for (const Info& object : objects)
    resource_samples(out, name, {{label, object.name}}, list(object));
}

}  // namespace

std::string not_ready_reason(const HubHealth& health) {
  if (health.recovering) return "recovering: waiting for the agents of the restored jobs to report";
  if (!health.store_degraded.empty()) return "store degraded: " + health.store_degraded;
  return "";
}

SchedulingMetrics::SchedulingMetrics()
    : pass_seconds_(support::exponential_buckets(kFirstPassBound, 2, kPassBuckets)) {}

SchedulingMetrics::QueueCounters& SchedulingMetrics::queue(hub::QueueIndex index) {
  if (index >= queues_.size()) queues_.resize(index + 1);
  return queues_[index];
}

void SchedulingMetrics::observe_pass(const hub::SchedulerCore& core,
                                     const std::vector<hub::Decision>& decisions, hub::TimeMs at,
                                     double seconds) {
  pass_seconds_.observe(seconds);
  for (const hub::Decision& decision : decisions) {
    ++decisions_[static_cast<int>(decision.kind)];
    const hub::Job& job = core.job(decision.job);
    if (decision.kind == hub::Decision::Kind::kEvict) ++queue(job.queue).evictions;
    if (decision.kind != hub::Decision::Kind::kDispatch) continue;
    QueueCounters& counters = queue(job.queue);
    ++counters.admissions;
    if (job.epoch != 1) continue;  // waited once: a placement again is not a new wait
    if (!counters.wait)
      counters.wait.emplace(support::exponential_buckets(kFirstWaitBound, 2, kWaitBuckets));
    counters.wait->observe(static_cast<double>(at - job.submitted_ms) / 1000.0);
  }
}

void SchedulingMetrics::prepare_answered(const std::string& cluster, bool admitted) {
  PrepareCounters& counters = prepares_[cluster];
  ++(admitted ? counters.admitted : counters.refused);
}

void SchedulingMetrics::render_queues(PrometheusText& out, const hub::SchedulerCore& core) const {
  const std::vector<protocol::QueueInfo> queues =
      list_reply(core, protocol::ListRequest{"queues"}, {}, 0).queues;
  std::vector<const QueueCounters*> counters;  // beside `queues`
  std::vector<QueueJobCounts> jobs;
  const std::vector<QueueJobCounts> by_index = job_counts_by_queue(core);
  for (const protocol::QueueInfo& info : queues) {
    const hub::QueueIndex index = *core.queues().find(info.name);
    counters.push_back(index < queues_.size() ? &queues_[index] : nullptr);
    jobs.push_back(by_index.at(index));
  }
  const auto job_gauge = [&](const char* name, const char* help, int QueueJobCounts::*field) {
    out.family(name, "gauge", help);
    for (std::size_t i = 0; i < queues.size(); ++i)
      out.sample(name, {{"queue", queues[i].name}}, jobs[i].*field);
  };
  job_gauge("gantry_queue_pending_jobs", "Jobs of the queue waiting to be placed.",
            &QueueJobCounts::pending);
  job_gauge("gantry_queue_dispatched_jobs",
            "Jobs of the queue placed and being prepared by their clusters' agents.",
            &QueueJobCounts::dispatched);
  job_gauge("gantry_queue_running_jobs", "Jobs of the queue running (or stopping) on clusters.",
            &QueueJobCounts::running);
  using Q = protocol::QueueInfo;
  per_resource(out, "gantry_queue_allocated", "Resources the queue's placed jobs hold.", "queue",
               queues, [](const Q& q) { return q.allocated; });
  per_resource(out, "gantry_queue_deserved", "The queue's fair share of the pool (DRF).", "queue",
               queues, [](const Q& q) { return q.deserved; });
  per_resource(out, "gantry_queue_capability", "The most the queue may hold.", "queue", queues,
               [](const Q& q) { return q.capability; });
  per_resource(out, "gantry_queue_guarantee", "What is kept for the queue whatever others want.",
               "queue", queues, [](const Q& q) { return q.guarantee; });
  per_resource(out, "gantry_queue_pending_requests", "Resources the queue's pending jobs ask for.",
               "queue", queues, [](const Q& q) { return q.pending; });
  per_object(out, "gantry_queue_share", "gauge",
             "The queue's dominant share: allocated over deserved, of its scarcest resource.",
             "queue", queues, [](const Q& q) { return q.share; });
  per_object(out, "gantry_queue_weight", "gauge", "The queue's weight.", "queue", queues,
             [](const Q& q) { return q.weight; });
  const auto counter = [&](const char* name, const char* help,
                           std::uint64_t QueueCounters::*field) {
    out.family(name, "counter", help);
    for (std::size_t i = 0; i < queues.size(); ++i)
      out.sample(name, {{"queue", queues[i].name}},
                 counters[i] ? static_cast<double>(counters[i]->*field) : 0.0);
  };
  counter("gantry_queue_admissions_total", "Placements of the queue's jobs (first and again).",
          &QueueCounters::admissions);
  counter("gantry_queue_evictions_total",
          "Parts of the queue's jobs stopped to make room (preemption, reclaim).",
          &QueueCounters::evictions);
  out.family("gantry_queue_wait_seconds", "histogram",
             "Time from a job's submission to its first placement.");
  const support::Histogram empty(support::exponential_buckets(kFirstWaitBound, 2, kWaitBuckets));
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const bool waited = counters[i] && counters[i]->wait;
    out.histogram("gantry_queue_wait_seconds", {{"queue", queues[i].name}},
                  waited ? *counters[i]->wait : empty);
  }
}

void SchedulingMetrics::render_clusters(PrometheusText& out, const hub::SchedulerCore& core,
                                        const LastSeen& last_seen, hub::TimeMs now) const {
  const std::vector<protocol::ClusterInfo> clusters =
      list_reply(core, protocol::ListRequest{"clusters"}, last_seen, now).clusters;
  using C = protocol::ClusterInfo;
  per_object(out, "gantry_cluster_ready", "gauge", "1 when the cluster's agent takes new work.",
             "cluster", clusters, [](const C& c) { return c.ready ? 1 : 0; });
  per_object(out, "gantry_cluster_cordoned", "gauge", "1 when the cluster gets no new placements.",
             "cluster", clusters, [](const C& c) { return c.cordoned ? 1 : 0; });
  per_object(out, "gantry_cluster_nodes", "gauge", "Nodes the cluster's agent reports.", "cluster",
             clusters, [](const C& c) { return c.nodes; });
  per_resource(out, "gantry_cluster_capacity", "Allocatable resources of the cluster's nodes.",
               "cluster", clusters, [](const C& c) { return c.capacity; });
  per_resource(out, "gantry_cluster_allocated", "Resources held on the cluster.", "cluster",
               clusters, [](const C& c) { return c.allocated; });
  per_resource(out, "gantry_cluster_free", "Capacity less allocated.", "cluster", clusters,
               [](const C& c) { return free_of(c); });
  per_object(out, "gantry_cluster_gpus_reporting", "gauge", "GPUs whose NVML readings arrive.",
             "cluster", clusters, [](const C& c) { return c.gpus_reporting; });
  per_object(out, "gantry_cluster_gpu_utilization_ratio", "gauge",
             "Mean utilisation of the reporting GPUs (0-1).", "cluster", clusters,
             [](const C& c) { return c.gpu_utilization_percent / 100.0; });
  per_object(out, "gantry_cluster_gpu_memory_used_bytes", "gauge",
             "GPU memory in use on the reporting GPUs.", "cluster", clusters,
             [](const C& c) { return static_cast<double>(c.gpu_memory_used_bytes); });
  per_object(out, "gantry_cluster_gpu_memory_total_bytes", "gauge",
             "GPU memory of the reporting GPUs.", "cluster", clusters,
             [](const C& c) { return static_cast<double>(c.gpu_memory_total_bytes); });
  per_object(out, "gantry_cluster_idle_gpus", "gauge",
             "GPUs at 0 % utilisation with no process while allocated GPUs exist.", "cluster",
             clusters, [](const C& c) { return c.idle_gpus; });
  per_object(out, "gantry_cluster_last_seen_timestamp_seconds", "gauge",
             "When the cluster's agent was last heard from (Unix time).", "cluster", clusters,
             [](const C& c) { return c.last_seen_ms / 1000.0; });
  out.family("gantry_cluster_prepares_total", "counter",
             "Prepares the cluster's agent answered, by answer.");
  for (const C& cluster : clusters) {
    const auto found = prepares_.find(cluster.name);
    const PrepareCounters counts = found == prepares_.end() ? PrepareCounters{} : found->second;
    out.sample("gantry_cluster_prepares_total", {{"cluster", cluster.name}, {"result", "admitted"}},
               static_cast<double>(counts.admitted));
    out.sample("gantry_cluster_prepares_total", {{"cluster", cluster.name}, {"result", "refused"}},
               static_cast<double>(counts.refused));
  }
}

void SchedulingMetrics::render_scheduling(PrometheusText& out) const {
  out.family("gantry_scheduling_pass_duration_seconds", "histogram",
             "How long one scheduling pass took (the core's schedule()).");
  out.histogram("gantry_scheduling_pass_duration_seconds", {}, pass_seconds_);
  out.family("gantry_scheduling_decisions_total", "counter", "Decisions of the passes, by kind.");
  for (int kind = 0; kind < 3; ++kind)
    out.sample("gantry_scheduling_decisions_total", {{"kind", kDecisionKinds[kind]}},
               static_cast<double>(decisions_[kind]));
}

std::string SchedulingMetrics::render(const hub::SchedulerCore& core, const LastSeen& last_seen,
                                      hub::TimeMs now, const HubHealth& health) const {
  PrometheusText out;
  out.family("gantry_hub_ready", "gauge", "1 when the hub schedules (what /readyz answers).");
  out.sample("gantry_hub_ready", {}, not_ready_reason(health).empty() ? 1 : 0);
  out.family("gantry_hub_recovering", "gauge",
             "1 while a restarted hub waits for agents to report what they run.");
  out.sample("gantry_hub_recovering", {}, health.recovering ? 1 : 0);
  out.family("gantry_store_degraded", "gauge", "1 while the store keeps writes in memory.");
  out.sample("gantry_store_degraded", {}, health.store_degraded.empty() ? 0 : 1);
  render_queues(out, core);
  render_clusters(out, core, last_seen, now);
  render_scheduling(out);
  return out.take();
}

}  // namespace gantry::actors
