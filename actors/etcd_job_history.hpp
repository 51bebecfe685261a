// The etcd store's ended jobs: listed from the store's listing of them
// (actors/etcd_ended_listing.hpp; the first read fills it from
// <prefix>ended/), described from the one record, through the store's client
// (thread-safe); names from the store's index of them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "actors/etcd_job_records.hpp"
#include "actors/job_history.hpp"
#include "etcd/client.hpp"

namespace gantry::actors {

class EndedNames;
class EtcdEndedListing;

class EtcdJobHistory final : public JobHistory {
 public:
  EtcdJobHistory(std::shared_ptr<etcd::Client> client, EtcdKeys keys,
                 std::shared_ptr<const EndedNames> names,
                 std::shared_ptr<EtcdEndedListing> listing);

  std::vector<protocol::JobInfo> ended(const std::set<std::string>& listed) override;
  std::vector<protocol::JobInfo> recent_ended(const std::set<std::string>& listed,
                                              std::size_t limit) override;
  std::optional<protocol::DescribeReply> describe(const std::string& name) override;
  // A lookup in memory: asked at every submission.
  bool holds_ended(std::string_view name) override;

 private:
  // Every ended job as listed, by row: a scan of <prefix>ended/.
  std::map<std::int64_t, protocol::JobInfo> read_all();

  std::shared_ptr<etcd::Client> client_;
  const EtcdKeys keys_;
  std::shared_ptr<const EndedNames> names_;
  std::shared_ptr<EtcdEndedListing> listing_;
};

}  // namespace gantry::actors
