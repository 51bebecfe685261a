#include "actors/list_watch.hpp"

#include <algorithm>
#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs

#include "actors/core_views.hpp"
#include "hub/scheduler.hpp"

namespace gantry::actors {

namespace {

template <class Row>
std::string packed(const Row& row) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, row);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace

std::string ListWatch::add(const ReplyTo& to, const protocol::ListRequest& request,
                           const JobEvents& events, hub::TimeMs now) {
  const std::string& kind = request.kind;
  if (kind != "jobs" && kind != "clusters" && kind != "queues" && kind != "events")
    return "watch: get " + kind + " cannot be watched (jobs, clusters, queues and events can)";
  if (watchers_.size() >= kMaxWatchers)
    return "watch: the hub already has " + std::to_string(kMaxWatchers) +
           " watchers (its limit); try again when one ends";
  // Jobs are told of what happens from now on; the rows pushed from the
  // first change after are the ones the list just answered.
  if (kind == "jobs" && !wants_jobs()) jobs_events_seen_ = events.added();
  if ((kind == "clusters" || kind == "queues") && !watched(kind)) unprimed_.insert(kind);
  watchers_.push_back(Watcher{to, kind, request.job, events.added(), now});
  return "";
}

void ListWatch::remove(const std::string& peer) {
  std::erase_if(watchers_, [&](const Watcher& watcher) { return watcher.to.peer == peer; });
  if (!wants_jobs()) ended_.clear();
  if (!watched("clusters")) clusters_sent_.clear();
  if (!watched("queues")) queues_sent_.clear();
}

bool ListWatch::watched(const std::string& kind) const {
  return std::any_of(watchers_.begin(), watchers_.end(),
                     [&](const Watcher& watcher) { return watcher.kind == kind; });
}

bool ListWatch::wants_jobs() const {
  return watched("jobs");
}

// The jobs something happened to since the last call, each once, in the
// order of their first event; an ended job as it was when it ended.
std::vector<protocol::JobInfo> ListWatch::changed_jobs(const hub::SchedulerCore& core,
                                                       const JobEvents& events, hub::TimeMs now) {
  std::vector<protocol::EventInfo> happened;
  events.recent(
      jobs_events_seen_, [](const protocol::EventInfo&) { return true; }, happened);
  jobs_events_seen_ = events.added();
  std::set<std::string> ended_names;
  for (const protocol::JobInfo& info : ended_) ended_names.insert(info.name);
  std::set<std::string> seen;
  std::vector<protocol::JobInfo> rows;
  for (const protocol::EventInfo& event : happened) {
    if (ended_names.contains(event.job) || !seen.insert(event.job).second) continue;
    const std::optional<hub::JobId> id = core.find_job(event.job);
    if (id && !core.job(*id).forgotten) rows.push_back(job_info(core, *id, now));
  }
  for (protocol::JobInfo& info : ended_) rows.push_back(std::move(info));
  ended_.clear();
  return rows;
}

template <class Row>
std::vector<Row> ListWatch::changed_rows(std::vector<Row> rows,
                                         std::map<std::string, std::string>& sent) {
  std::vector<Row> changed;
  for (Row& row : rows) {
    Row compared = row;
    if constexpr (requires { compared.last_seen_ms; }) compared.last_seen_ms = 0;  // ticks by
    std::string now_packed = packed(compared);
    std::string& before = sent[row.name];
    if (before == now_packed) continue;
    before = std::move(now_packed);
    changed.push_back(std::move(row));
  }
  return changed;
}

std::vector<ListWatch::Push> ListWatch::changes(const hub::SchedulerCore& core,
                                                const JobEvents& events, const LastSeen& last_seen,
                                                hub::TimeMs now) {
  protocol::ListReply rows;
  if (wants_jobs()) rows.jobs = changed_jobs(core, events, now);
  if (watched("clusters"))
    rows.clusters =
        changed_rows(list_reply(core, protocol::ListRequest{"clusters"}, last_seen, now).clusters,
                     clusters_sent_);
  if (watched("queues"))
    rows.queues = changed_rows(
        list_reply(core, protocol::ListRequest{"queues"}, last_seen, now).queues, queues_sent_);
  if (unprimed_.erase("clusters") > 0) rows.clusters.clear();
  if (unprimed_.erase("queues") > 0) rows.queues.clear();
  std::vector<Push> pushes;
  for (Watcher& watcher : watchers_) {
    protocol::ListReply reply;
    if (watcher.kind == "jobs") reply.jobs = rows.jobs;
    if (watcher.kind == "clusters") reply.clusters = rows.clusters;
    if (watcher.kind == "queues") reply.queues = rows.queues;
    if (watcher.kind == "events") {
      events.recent(
          watcher.events_seen,
          [&](const protocol::EventInfo& event) {
            return watcher.job.empty() || event.job == watcher.job;
          },
          reply.events);
      watcher.events_seen = events.added();
    }
    const bool empty = reply.jobs.empty() && reply.clusters.empty() && reply.queues.empty() &&
                       reply.events.empty();
    if (empty && now - watcher.last_sent < protocol::kWatchKeepaliveMs) continue;
    watcher.last_sent = now;
    pushes.push_back(Push{watcher.to, std::move(reply)});
  }
  return pushes;
}

}  // namespace gantry::actors
