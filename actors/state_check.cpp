#include "actors/state_check.hpp"

#include <sqlite3.h>

#include <exception>
#include <string>

#include "actors/etcd_job_store.hpp"
#include "actors/sqlite_job_store.hpp"
#include "actors/state_lock.hpp"

namespace gantry::actors {

int check_state_directory(const std::filesystem::path& state_dir, std::ostream& out) {
  const std::string holder = StateLock::holder(state_dir);
  out << "state directory: " << state_dir.string() << "\n";
  out << "held by: " << (holder.empty() ? "no hub" : holder) << "\n";
  if (!std::filesystem::exists(state_dir / "gantry.db") &&
      SqliteJobStore::damage_before_open(state_dir).empty()) {
    out << "store: none yet (a hub started here makes a new, empty state)\n";
    return 0;
  }
  try {
    if (const std::string damage = SqliteJobStore::damage_before_open(state_dir); !damage.empty())
      throw std::runtime_error(damage);
    SqliteJobStore store(state_dir);
    const StateSummary summary = store.summary();
    out << "store: " << store.path().string() << ", schema version " << summary.schema_version
        << "\n";
    out << "jobs: " << summary.jobs << " (" << summary.unfinished << " unfinished)\n";
    out << "queues: " << summary.queues << "\n";
    if (!summary.integrity.empty()) {
      out << "integrity: FAILED: " << summary.integrity << "\n";
      return 1;
    }
    out << "integrity: ok\n";
    return 0;
  } catch (const std::exception& e) {
    out << "damaged: " << e.what() << "\n";
    return 1;
  }
}

int check_etcd_store(const std::string& url, const etcd::Access& access, std::ostream& out) {
  try {
    const EtcdStoreAddress address = parse_etcd_store_address(url, access);
    std::string holder;
    const StateSummary summary = EtcdJobStore::inspect(address, holder);
    if (summary.schema_version == 0) {
      out << "store: " << url << ", prefix " << address.prefix
          << ": none yet (a hub started on it makes a new, empty state)\n";
      return 0;
    }
    out << "store: " << url << ", prefix " << address.prefix << ", schema version "
        << summary.schema_version << "\n";
    out << "held by: " << (holder.empty() ? "no hub" : holder) << "\n";
    out << "jobs: " << summary.jobs << " (" << summary.unfinished << " unfinished)\n";
    out << "queues: " << summary.queues << "\n";
    out << "records: every one read\n";
    return 0;
  } catch (const std::exception& e) {
    out << "damaged or unreachable: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace gantry::actors
