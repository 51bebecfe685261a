// What gantryctl get jobs shows of each ended job on an etcd store, kept in
// memory once read. etcd has no index to read a summary by: without this,
// every get jobs read every ended record (its whole describe record) through
// the gateway, on the store actor, which commits nothing meanwhile — 0.25 to
// 0.56 s at 1,000 ended jobs on a loaded 2-core box, and past gantryctl's
// 5 s once in CI. The first read scans <prefix>ended/; from then on each
// committed transaction changes the listing, and reads touch no etcd.
//
// Shared by the store, which changes it after each commit, and its history
// readers on other threads (the web view's feed). A read that fills it holds
// the lock while it scans, so a commit applied meanwhile waits and then
// lands on the filled listing: changes are by row, so applying one the scan
// already saw changes nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "actors/job_history.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

class EtcdEndedListing {
 public:
  using Rows = std::map<std::int64_t, protocol::JobInfo>;  // by row: oldest first

  // One ended row a transaction wrote (its new contents) or removed (nullopt).
  struct Change {
    std::int64_t row = 0;
    std::optional<EndedRow> ended;
  };

  // What a committed transaction changed. Nothing is kept before the first
  // read: that read's scan sees the transaction.
  void apply(std::vector<Change>& changes);

  // Calls `each` for every ended job, oldest first; `read_all` reads them
  // from etcd the first time (an exception leaves the listing unread).
  void visit(const std::function<Rows()>& read_all,
             const std::function<void(std::int64_t row, const protocol::JobInfo&)>& each);

  // What the listing shows of a row as the store holds it.
  static protocol::JobInfo listed(const EndedRow& row);

 private:
  std::mutex mutex_;
  std::optional<Rows> rows_;
};

}  // namespace gantry::actors
