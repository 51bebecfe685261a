#include "actors/web_history.hpp"

#include <spdlog/spdlog.h>

#include <set>
#include <stdexcept>
#include <utility>

namespace gantry::actors {

WebHistory::WebHistory(HistoryOpener open_history, std::size_t shown)
    : open_history_(std::move(open_history)), shown_(shown) {}

JobHistory& WebHistory::history() {
  if (!history_) history_ = open_history_();
  return *history_;
}

bool WebHistory::add_ended(protocol::ListReply& jobs) {
  std::set<std::string> listed;
  for (const protocol::JobInfo& job : jobs.jobs) listed.insert(job.name);
  try {
    const std::lock_guard lock(mutex_);
    std::vector<protocol::JobInfo> ended = history().recent_ended(listed, shown_);
    jobs.jobs.insert(jobs.jobs.begin(), std::make_move_iterator(ended.begin()),
                     std::make_move_iterator(ended.end()));
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("http: the web view cannot read ended jobs: {}", e.what());
    return false;
  }
}

void WebHistory::describe_ended(const std::string& name, protocol::DescribeReply& reply) {
  try {
    const std::lock_guard lock(mutex_);
    if (auto ended = history().describe(name)) reply = std::move(*ended);
  } catch (const std::exception& e) {
    spdlog::warn("http: the web view cannot read ended job {}: {}", name, e.what());
  }
}

}  // namespace gantry::actors
