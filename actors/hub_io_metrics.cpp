#include "actors/hub_io_metrics.hpp"

namespace gantry::actors {

namespace {

// Answers take 50 µs (a get) to seconds (a get jobs of a large backlog);
// commits about as long: 50 µs to ~13 s, doubling.
std::vector<double> latency_buckets() {
  return support::exponential_buckets(0.00005, 2, 19);
}

}  // namespace

HubIoMetrics::HubIoMetrics() : commit_seconds_(latency_buckets()) {}

void HubIoMetrics::requested(const std::string& peer, std::uint64_t seq, std::string_view command,
                             Clock::time_point at) {
  std::lock_guard lock(mutex_);
  if (pending_.size() >= kMostPending) return;
  pending_[{peer, seq}] = Pending{std::string(command), at};
}

void HubIoMetrics::answered(const std::string& peer, std::uint64_t seq, std::string_view result,
                            Clock::time_point at) {
  std::lock_guard lock(mutex_);
  const auto found = pending_.find({peer, seq});
  if (found == pending_.end()) return;
  const std::string& command = found->second.command;
  ++requests_[{command, std::string(result)}];
  auto histogram = latency_.find(command);
  if (histogram == latency_.end())
    histogram = latency_.emplace(command, support::Histogram(latency_buckets())).first;
  histogram->second.observe(std::chrono::duration<double>(at - found->second.at).count());
  pending_.erase(found);
}

void HubIoMetrics::refused(std::string_view command, std::string_view result) {
  std::lock_guard lock(mutex_);
  ++requests_[{std::string(command), std::string(result)}];
}

void HubIoMetrics::committed(double seconds, std::size_t writes) {
  std::lock_guard lock(mutex_);
  commit_seconds_.observe(seconds);
  committed_writes_ += writes;
}

void HubIoMetrics::render(support::PrometheusText& out) const {
  std::lock_guard lock(mutex_);
  out.family("gantry_admin_requests_total", "counter",
             "Requests on the admin socket (gantryctl), by command and result.");
  for (const auto& [key, count] : requests_)
    out.sample("gantry_admin_requests_total", {{"command", key.first}, {"result", key.second}},
               static_cast<double>(count));
  out.family("gantry_admin_request_duration_seconds", "histogram",
             "From an admin request read to its answer sent, by command.");
  for (const auto& [command, histogram] : latency_)
    out.histogram("gantry_admin_request_duration_seconds", {{"command", command}}, histogram);
  out.family("gantry_store_commit_duration_seconds", "histogram",
             "One group commit of the job store (SQLite).");
  out.histogram("gantry_store_commit_duration_seconds", {}, commit_seconds_);
  out.family("gantry_store_committed_writes_total", "counter",
             "Writes the job store committed (jobs, dispatch records, ends, queues).");
  out.sample("gantry_store_committed_writes_total", {}, static_cast<double>(committed_writes_));
}

}  // namespace gantry::actors
