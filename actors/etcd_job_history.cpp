#include "actors/etcd_job_history.hpp"

#include <utility>

#include "actors/etcd_job_store.hpp"

namespace gantry::actors {

namespace {

constexpr std::int64_t kScanPage = 500;

}  // namespace

EtcdJobHistory::EtcdJobHistory(std::shared_ptr<etcd::Client> client, EtcdKeys keys,
                               std::shared_ptr<const EndedNames> names)
    : client_(std::move(client)), keys_(std::move(keys)), names_(std::move(names)) {}

std::vector<EndedRow> EtcdJobHistory::rows() {
  std::vector<EndedRow> rows;
  client_->scan(keys_.ended(), kScanPage, [&](const etcd::KeyValue& kv) {
    auto job = unpack_record<EtcdEnded>(kv.key, kv.value);
    rows.push_back(EndedRow{std::move(job.name), std::move(job.phase), job.submitted_ms,
                            job.finished_ms, std::move(job.submitter), std::move(job.queue),
                            job.started_ms, std::move(job.record)});
  });
  return rows;
}

std::vector<protocol::JobInfo> EtcdJobHistory::ended(const std::set<std::string>& listed) {
  std::vector<protocol::JobInfo> jobs;
  for (const EndedRow& row : rows())
    if (!listed.count(row.name)) jobs.push_back(std::move(ended_reply(row).job));
  return jobs;
}

std::vector<protocol::JobInfo> EtcdJobHistory::recent_ended(const std::set<std::string>& listed,
                                                            std::size_t limit) {
  std::vector<protocol::JobInfo> jobs = ended(listed);
  if (jobs.size() > limit) jobs.erase(jobs.begin(), jobs.end() - static_cast<long>(limit));
  return jobs;
}

std::optional<protocol::DescribeReply> EtcdJobHistory::describe(const std::string& name) {
  std::optional<protocol::DescribeReply> latest;
  for (const EndedRow& row : rows())
    if (row.name == name) latest = ended_reply(row);
  return latest;
}

bool EtcdJobHistory::holds_ended(std::string_view name) {
  return names_->holds(name);
}

}  // namespace gantry::actors
