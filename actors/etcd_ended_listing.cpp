#include "actors/etcd_ended_listing.hpp"

#include <utility>

namespace gantry::actors {

void EtcdEndedListing::apply(std::vector<Change>& changes) {
  std::lock_guard lock(mutex_);
  if (!rows_) return;
  for (Change& change : changes) {
    if (change.ended)
      (*rows_)[change.row] = listed(*change.ended);
    else
      rows_->erase(change.row);
  }
}

void EtcdEndedListing::visit(
    const std::function<Rows()>& read_all,
    const std::function<void(std::int64_t row, const protocol::JobInfo&)>& each) {
  std::lock_guard lock(mutex_);
  if (!rows_) rows_ = read_all();
  for (const auto& [row, job] : *rows_) each(row, job);
}

protocol::JobInfo EtcdEndedListing::listed(const EndedRow& row) {
  return std::move(ended_reply(row).job);
}

}  // namespace gantry::actors
