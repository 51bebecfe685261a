// The ended jobs the web view shows (docs/web.md): those the scheduling core
// has released live only in the store, as for gantryctl get and describe, but
// the web view reads them on its own threads through a reader of its own
// (actors/job_history.hpp: the store's writes do not wait), so that
// an open page adds no work to the scheduler or store actors. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "actors/job_history.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

class WebHistory {
 public:
  // `shown`: how many ended jobs the overview lists at most, the latest.
  WebHistory(HistoryOpener open_history, std::size_t shown);

  // Adds the latest ended jobs `jobs` does not list, before them (oldest
  // first, as gantryctl get jobs lists them). False when they cannot be read.
  bool add_ended(protocol::ListReply& jobs);
  // `reply` (the core's answer: no such job) becomes the ended job's record
  // when the store keeps one.
  void describe_ended(const std::string& name, protocol::DescribeReply& reply);

 private:
  JobHistory& history();  // opened at first use

  const HistoryOpener open_history_;
  const std::size_t shown_;
  std::mutex mutex_;
  std::unique_ptr<JobHistory> history_;
};

}  // namespace gantry::actors
