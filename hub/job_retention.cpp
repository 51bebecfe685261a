// Job names from generateName, forgetting jobs (delete, ttl) and the core's
// side of both (SchedulerCore::forget, SchedulerCore::make_name).
#include "hub/job_retention.hpp"

#include <algorithm>
#include <stdexcept>

namespace gantry::hub {

namespace {

// Kubernetes' alphanumerics for generated names (apimachinery's rand).
constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// splitmix64: consecutive attempts spread over the whole suffix space.
std::uint64_t mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace

std::string generated_name(std::string_view prefix, std::uint64_t seed, std::uint64_t attempt) {
  std::string name(prefix.substr(0, kMaxGenerateNamePrefix));
  std::uint64_t bits = mix(mix(seed) ^ attempt);
  for (std::size_t i = 0; i < kGeneratedSuffixLength; ++i) {
    name += kSuffixAlphabet[bits % kSuffixAlphabet.size()];
    bits /= kSuffixAlphabet.size();
  }
  return name;
}

// ------------------------------------------------------------------ core

// Tries candidates until one no live job holds: with 27^5 suffixes a retry
// is rare, and the names of forgotten jobs are free again.
std::string SchedulerCore::make_name(std::string_view prefix) {
  for (;;) {
    std::string name = generated_name(prefix, options_.first_dispatch_id, names_made_++);
    if (!job_by_name_.count(name) && !(names_held_elsewhere_ && names_held_elsewhere_(name)))
      return name;
  }
}

// The slot stays, emptied of everything the job owned, until a new job takes
// it: ids index jobs_ and are held outside the core (store rows, events,
// timers), each dropped or checked when its job is forgotten.
void SchedulerCore::forget(JobId id) {
  Job& job = jobs_.at(id);
  if (job.forgotten) return;
  if (!is_terminal(job.phase) || job.dispatch != 0)
    throw std::logic_error("job \"" + job.name + "\" cannot be forgotten before it ends");
  job_by_name_.erase(job.name);
  const JobPhase phase = job.phase;
  job = Job{};
  job.phase = phase;  // still ended, for any code that walks every slot
  job.forgotten = true;
  free_ids_.push_back(id);
}

// ------------------------------------------------------------------ retention

void JobRetention::finished(JobId id, TimeMs at, TimeMs now, std::vector<JobId>& forgotten) {
  const Job& job = core_.job(id);
  if (job.forgotten) return;
  if (deleting_.count(id)) {
    forget_if_done(id, forgotten);
    return;
  }
  TimeMs ttl = job.ttl_after_finished_ms;
  if (keep_finished_ms_ >= 0) ttl = ttl < 0 ? keep_finished_ms_ : std::min(ttl, keep_finished_ms_);
  if (ttl < 0) return;
  schedule(id, at + ttl);
  expire(now, forgotten);
}

void JobRetention::remove(JobId id, DispatchId dispatch, const std::vector<ClusterIndex>& running,
                          TimeMs now, TimeMs stop_deadline, std::vector<JobId>& forgotten) {
  if (core_.job(id).forgotten) return;
  unschedule(id);  // its ttl no longer matters
  deleting_[id] = running.empty() ? 0 : dispatch;
  if (!running.empty()) {
    stopping_[dispatch] = Stopping{id, running};
    schedule(id, stop_deadline);
  }
  forget_if_done(id, forgotten);
  expire(now, forgotten);
}

bool JobRetention::release(JobId id) {
  const Job& job = core_.job(id);
  if (job.forgotten || !is_terminal(job.phase) || job.dispatch != 0 || deleting_.count(id))
    return false;
  unschedule(id);
  core_.forget(id);
  return true;
}

void JobRetention::part_stopped(DispatchId dispatch, ClusterIndex cluster, TimeMs /*now*/,
                                std::vector<JobId>& forgotten) {
  const auto found = stopping_.find(dispatch);
  if (found == stopping_.end()) return;
  std::vector<ClusterIndex>& clusters = found->second.clusters;
  clusters.erase(std::remove(clusters.begin(), clusters.end(), cluster), clusters.end());
  if (!clusters.empty()) return;
  const JobId id = found->second.job;
  stopping_.erase(found);
  deleting_[id] = 0;
  forget_if_done(id, forgotten);
}

void JobRetention::cluster_gone(ClusterIndex cluster, TimeMs now, std::vector<JobId>& forgotten) {
  for (DispatchId id : stopping_on(cluster)) part_stopped(id, cluster, now, forgotten);
}

std::vector<DispatchId> JobRetention::stopping_on(ClusterIndex cluster) const {
  std::vector<DispatchId> out;
  for (const auto& [dispatch, stopping] : stopping_)
    if (std::find(stopping.clusters.begin(), stopping.clusters.end(), cluster) !=
        stopping.clusters.end())
      out.push_back(dispatch);
  return out;
}

// A deleted job whose parts did not all report their stop is forgotten at
// its deadline anyway: an agent that never answers must not keep the name.
void JobRetention::expire(TimeMs now, std::vector<JobId>& forgotten) {
  while (!expiries_.empty() && expiries_.begin()->first <= now) {
    const JobId id = expiries_.begin()->second;
    unschedule(id);
    if (const auto deleting = deleting_.find(id); deleting != deleting_.end()) {
      stopping_.erase(deleting->second);
      deleting->second = 0;
    }
    if (is_terminal(core_.job(id).phase)) forget(id, forgotten);
  }
}

TimeMs JobRetention::next_expiry() const {
  return expiries_.empty() ? kNever : expiries_.begin()->first;
}

TimeMs JobRetention::expiry_of(JobId id) const {
  const auto found = expiry_by_job_.find(id);
  return found == expiry_by_job_.end() ? kNever : found->second;
}

void JobRetention::schedule(JobId id, TimeMs at) {
  unschedule(id);
  expiries_.emplace(at, id);
  expiry_by_job_[id] = at;
}

void JobRetention::unschedule(JobId id) {
  const auto found = expiry_by_job_.find(id);
  if (found == expiry_by_job_.end()) return;
  expiries_.erase({found->second, id});
  expiry_by_job_.erase(found);
}

void JobRetention::forget_if_done(JobId id, std::vector<JobId>& forgotten) {
  const auto deleting = deleting_.find(id);
  if (deleting == deleting_.end() || deleting->second != 0) return;
  if (is_terminal(core_.job(id).phase) && core_.job(id).dispatch == 0) forget(id, forgotten);
}

void JobRetention::forget(JobId id, std::vector<JobId>& forgotten) {
  if (core_.job(id).forgotten) return;
  core_.forget(id);
  unschedule(id);
  deleting_.erase(id);
  forgotten.push_back(id);
}

}  // namespace gantry::hub
