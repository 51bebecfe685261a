#include "actors/job_events.hpp"

#include <ctime>

#include "hub/scheduler.hpp"
#include "support/rfc3339.hpp"

namespace gantry::actors {

std::string format_utc(hub::TimeMs at) {
  return support::rfc3339_utc_ms(at);
}

void JobEvents::add(hub::JobId job, hub::TimeMs at, std::string text) {
  if (job >= events_.size()) events_.resize(job + 1);
  std::vector<std::string>& history = events_[job];
  if (history.size() == kMaxPerJob) history.erase(history.begin() + 1);
  history.push_back(format_utc(at) + " " + text);
  const hub::Job& named = core_.job(job);
  if (recent_.size() == kMaxRecent) recent_.pop_front();
  recent_.push_back(
      protocol::EventInfo{at, named.name, core_.queue_name(named.queue), std::move(text)});
  ++added_;
}

std::vector<std::string> JobEvents::list(hub::JobId job) const {
  if (job >= events_.size()) return {};
  return events_[job];
}

void JobEvents::forget(hub::JobId job) {
  if (job < events_.size()) std::vector<std::string>().swap(events_[job]);
}

}  // namespace gantry::actors
