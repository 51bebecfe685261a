// The etcd store's ended jobs: read from <prefix>ended/ through the store's
// client (thread-safe), names from the store's index of them.
#pragma once

#include <memory>

#include "actors/etcd_job_records.hpp"
#include "actors/job_history.hpp"
#include "etcd/client.hpp"

namespace gantry::actors {

class EndedNames;

class EtcdJobHistory final : public JobHistory {
 public:
  EtcdJobHistory(std::shared_ptr<etcd::Client> client, EtcdKeys keys,
                 std::shared_ptr<const EndedNames> names);

  std::vector<protocol::JobInfo> ended(const std::set<std::string>& listed) override;
  std::vector<protocol::JobInfo> recent_ended(const std::set<std::string>& listed,
                                              std::size_t limit) override;
  std::optional<protocol::DescribeReply> describe(const std::string& name) override;
  // A lookup in memory: asked at every submission.
  bool holds_ended(std::string_view name) override;

 private:
  // Every ended job's row, oldest first.
  std::vector<EndedRow> rows();

  std::shared_ptr<etcd::Client> client_;
  const EtcdKeys keys_;
  std::shared_ptr<const EndedNames> names_;
};

}  // namespace gantry::actors
