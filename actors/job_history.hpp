// Ended jobs as the store keeps them, read on request (gantryctl get jobs,
// describe job) rather than held in the scheduling core: they outlive hub
// restarts until deleted, their ttl or --keep-finished. Each backend's reader
// (JobStore::open_history) reads without waiting on the store's writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::actors {

class JobHistory {
 public:
  virtual ~JobHistory() = default;

  // Ended jobs whose names are not in `listed`, oldest submission first.
  virtual std::vector<protocol::JobInfo> ended(const std::set<std::string>& listed) = 0;
  // Of those, the `limit` stored last, oldest submission first (the web view's
  // jobs table: a bounded read however many ended jobs are kept).
  virtual std::vector<protocol::JobInfo> recent_ended(const std::set<std::string>& listed,
                                                      std::size_t limit) = 0;
  // What describe job shows of the latest ended job named `name`.
  virtual std::optional<protocol::DescribeReply> describe(const std::string& name) = 0;
  // Whether an ended job named `name` is kept.
  virtual bool holds_ended(std::string_view name) = 0;
};

// An ended job as a store row holds it, and what describe shows of it: its
// record as its end left it; a row without one (ended before the store kept
// records, or unreadable) shows what the row itself holds.
struct EndedRow {
  std::string name;
  std::string phase;
  std::int64_t submitted_ms = 0;
  std::int64_t finished_ms = 0;
  std::string submitter;
  std::string queue;
  std::int64_t started_ms = 0;
  std::string record;  // msgpack protocol::DescribeReply
};
protocol::DescribeReply ended_reply(const EndedRow& row);

// Opens a reader of the ended jobs (JobStore::open_history).
using HistoryOpener = std::function<std::unique_ptr<JobHistory>()>;

}  // namespace gantry::actors
