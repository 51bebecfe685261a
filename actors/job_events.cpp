#include "actors/job_events.hpp"

#include <ctime>

#include "hub/scheduler.hpp"

namespace gantry::actors {

std::string format_utc(hub::TimeMs at) {
  const std::time_t seconds = static_cast<std::time_t>(at / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof text - length, ".%03dZ", static_cast<int>(at % 1000));
  return text;
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
