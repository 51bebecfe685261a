#include "actors/etcd_job_history.hpp"

#include <utility>

#include "actors/etcd_ended_listing.hpp"
#include "actors/etcd_job_store.hpp"

namespace gantry::actors {

namespace {

constexpr std::int64_t kScanPage = 500;

EndedRow ended_row(const std::string& key, const std::string& value) {
  auto job = unpack_record<EtcdEnded>(key, value);
  return EndedRow{std::move(job.name), std::move(job.phase),     job.submitted_ms,
                  job.finished_ms,     std::move(job.submitter), std::move(job.queue),
                  job.started_ms,      std::move(job.record)};
}

}  // namespace

EtcdJobHistory::EtcdJobHistory(std::shared_ptr<etcd::Client> client, EtcdKeys keys,
                               std::shared_ptr<const EndedNames> names,
                               std::shared_ptr<EtcdEndedListing> listing)
    : client_(std::move(client)),
      keys_(std::move(keys)),
      names_(std::move(names)),
      listing_(std::move(listing)) {}

std::map<std::int64_t, protocol::JobInfo> EtcdJobHistory::read_all() {
  std::map<std::int64_t, protocol::JobInfo> rows;
  client_->scan(keys_.ended(), kScanPage, [&](const etcd::KeyValue& kv) {
    rows[EtcdKeys::row_of(kv.key)] = EtcdEndedListing::listed(ended_row(kv.key, kv.value));
  });
  return rows;
}

std::vector<protocol::JobInfo> EtcdJobHistory::ended(const std::set<std::string>& listed) {
  std::vector<protocol::JobInfo> jobs;
  listing_->visit([this] { return read_all(); },
                  [&](std::int64_t, const protocol::JobInfo& job) {
                    if (!listed.count(job.name)) jobs.push_back(job);
                  });
  return jobs;
}

std::vector<protocol::JobInfo> EtcdJobHistory::recent_ended(const std::set<std::string>& listed,
                                                            std::size_t limit) {
  std::vector<protocol::JobInfo> jobs = ended(listed);
  if (jobs.size() > limit) jobs.erase(jobs.begin(), jobs.end() - static_cast<long>(limit));
  return jobs;
}

// The latest row of that name, found in the listing; its record read alone.
std::optional<protocol::DescribeReply> EtcdJobHistory::describe(const std::string& name) {
  std::optional<std::int64_t> latest;
  listing_->visit([this] { return read_all(); },
                  [&](std::int64_t row, const protocol::JobInfo& job) {
                    if (job.name == name) latest = row;
                  });
  if (!latest) return std::nullopt;
  const std::string key = keys_.ended_job(*latest);
  const etcd::RangeResult found = client_->get(key);
  if (found.kvs.empty()) return std::nullopt;  // forgotten since
  return ended_reply(ended_row(key, found.kvs.front().value));
}

bool EtcdJobHistory::holds_ended(std::string_view name) {
  return names_->holds(name);
}

}  // namespace gantry::actors
