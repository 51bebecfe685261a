// The job store on etcd v3 (--store etcd://...), for hubs that must outlive
// their machine: every job, dispatch record, queue and priority class lives
// under one key prefix (actors/etcd_job_records.hpp), so another hub on the
// same etcd finds all of it.
//
// Only the hub holding the prefix's writer claim writes, and each of its
// transactions holds only while that claim does (fencing). The store keeps
// small indexes in memory (the rows of unfinished and ended jobs, queue
// positions), built from etcd when it opens: etcd has no secondary index.
//
// A transaction gathers its writes by key (etcd refuses a key twice in one)
// and is full at kMaxOpsPerTransaction operations or kMaxTransactionBytes,
// within etcd's defaults (--max-txn-ops 128, --max-request-bytes 1.5 MiB):
// the store actor then commits and begins the next. One write of more keys
// than that is sent in several etcd transactions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actors/etcd_ended_listing.hpp"
#include "actors/etcd_hub_presence.hpp"
#include "actors/etcd_job_records.hpp"
#include "actors/etcd_warm_copy.hpp"
#include "actors/etcd_writer_claim.hpp"
#include "actors/job_store.hpp"
#include "etcd/client.hpp"

namespace gantry::actors {

// Where --store etcd://HOST:PORT[,HOST:PORT...][/PREFIX] points, and how
// every client of the store reaches it (--store-cacert, --store-user, ...).
struct EtcdStoreAddress {
  std::vector<std::string> endpoints;  // http://HOST:PORT each, https:// with TLS files
  std::string prefix = "/gantry/";     // ends with '/'
  etcd::Access access{};
};
// Throws std::runtime_error saying what is wrong with `text` (not naming the
// flag). The endpoints are https:// when `access` has TLS files.
EtcdStoreAddress parse_etcd_store_address(const std::string& text, const etcd::Access& access = {});

// The names of the ended jobs, shared with the store's history readers so
// that a name check (one per submission) is a lookup, not a range over etcd.
// Updated once a transaction has committed.
class EndedNames {
 public:
  bool holds(std::string_view name) const;
  void change(const std::string& name, int by);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int, std::less<>> counts_;
};

// How a hub shows itself to the others on the store: its presence record
// (no name: none), and what it is told while it waits for the store.
struct EtcdHubPresenceOptions {
  protocol::HubInfo self;
  // Each time it finds another hub holding the store: that hub, as its
  // presence record says (only its name when it has none).
  std::function<void(const protocol::HubInfo& leader)> on_standby;
};

class EtcdJobStore final : public JobStore {
 public:
  static constexpr std::size_t kMaxOpsPerTransaction = 100;
  static constexpr std::size_t kMaxTransactionBytes = 1u << 20;

  // Claims the prefix (waiting while another hub holds it), then reads it.
  // Throws std::runtime_error when etcd cannot be reached or holds a
  // damaged or newer store.
  EtcdJobStore(EtcdStoreAddress address, WriterClaimOptions claim,
               EtcdHubPresenceOptions presence = {});
  ~EtcdJobStore() override;

  std::string where() const override;
  bool created() const override { return created_; }
  StateSummary summary() override;
  std::unique_ptr<JobHistory> open_history() const override;

  void begin() override;
  void commit() override;
  void rollback() noexcept override;
  bool transaction_full() const override;

  std::int64_t add(std::string_view name, std::string_view yaml, std::int64_t submitted_ms,
                   std::string_view submitter, std::string_view spec = {}) override;
  using JobStore::finish;
  void finish(const FinishedJob& job) override;
  std::vector<std::string> ended_submitters(std::string_view name) override;
  void forget_ended(std::string_view name) override;
  std::int64_t forget_expired(std::int64_t now, std::int64_t ended_by, std::int64_t limit) override;
  std::optional<std::int64_t> next_expiry(std::int64_t keep_finished_ms) override;
  void forget(std::int64_t row) override;
  void rename(std::int64_t row, std::string_view name) override;
  std::vector<StoredJob> unfinished() override;
  void record_dispatch(std::int64_t row, const StoredDispatch& dispatch) override;
  void set_cordoned(std::string_view cluster, bool cordoned) override;
  std::vector<std::string> cordoned_clusters() override;
  void save_queue(std::string_view name, std::string_view yaml) override;
  void drop_queue(std::string_view name) override;
  std::vector<std::string> queues() override;
  void save_priority_class(std::string_view name, std::string_view yaml) override;
  void drop_priority_class(std::string_view name) override;
  std::vector<std::string> priority_classes() override;
  std::uint64_t start_generation() override;
  std::uint64_t first_generation() override { return first_generation_; }
  // Every hub with a presence record, this one (the leader) first.
  std::vector<protocol::HubInfo> hubs() override;

  // The claim this store writes under (tests end it to see fencing work).
  const EtcdWriterClaim& claim() const { return *claim_; }
  // Whether it read the store from the copy it kept while standing by.
  bool loaded_warm() const { return loaded_warm_; }

  // gantry-hub --store URL --check: every record read and counted, without
  // claiming the store or writing anything; the hub that holds it ("" when
  // none) in `holder`. Throws std::runtime_error, as opening would, for a
  // damaged or newer store.
  static StateSummary inspect(const EtcdStoreAddress& address, std::string& holder);

 private:
  struct LiveJob {
    std::string name;
    std::int64_t submitted_ms = 0;
    std::string submitter;
  };
  struct EndedJob {
    std::string name;
    std::string submitter;
    std::int64_t submitted_ms = 0;
    std::int64_t finished_ms = 0;
    std::int64_t expires_ms = 0;
  };

  // Reads without claiming (inspect): nothing may be written through it.
  explicit EtcdJobStore(EtcdStoreAddress address);
  WriterClaimOptions telling_standby(WriterClaimOptions claim,
                                     std::function<void(const protocol::HubInfo&)> on_standby);
  protocol::HubInfo presence_of_hub(const std::string& name);
  void keep_warm_copy();
  EtcdWarmCopy::Keys read_all();
  void load();
  void load_key(const etcd::KeyValue& kv);
  void load_meta(const etcd::KeyValue& kv);
  std::vector<etcd::KeyValue> scan(const std::string& prefix) const;
  void put(const std::string& key, std::string value);
  void remove(const std::string& key);
  void undo(std::function<void()> step) { undo_.push_back(std::move(step)); }
  void end_of_write();
  std::string value_of(const std::string& key);
  void forget_ended_row(std::int64_t row);
  void send_pending();
  void send_transaction(std::vector<etcd::Op> ops);

  const EtcdStoreAddress address_;
  const EtcdKeys keys_;
  std::shared_ptr<etcd::Client> client_;
  std::unique_ptr<EtcdHubPresence> presence_;  // before the claim: listed while it waits
  std::unique_ptr<EtcdWarmCopy> warm_;         // kept while it waits; taken by load()
  std::unique_ptr<EtcdWriterClaim> claim_;
  // Every key as load() read it, for the reads of the hub's start (its
  // unfinished jobs, queues, ...) until the first write: one read, not two.
  std::optional<EtcdWarmCopy::Keys> startup_copy_;
  bool loaded_warm_ = false;
  std::shared_ptr<EndedNames> ended_names_;
  std::shared_ptr<EtcdEndedListing> ended_listing_ = std::make_shared<EtcdEndedListing>();
  bool created_ = false;
  std::int64_t schema_ = 0;
  std::int64_t generation_ = 0;
  std::uint64_t first_generation_ = 1;
  std::int64_t next_row_ = 1;
  std::uint64_t commits_ = 0;  // this store's transactions, for their tokens
  std::map<std::int64_t, LiveJob> live_;
  std::map<std::int64_t, EndedJob> ended_;
  std::map<std::string, std::int64_t, std::less<>> queue_positions_;

  // The open transaction: the last value (nullopt: deleted) of each key it
  // writes, how to undo its index changes, and the ended names and rows it
  // changes (told to their readers once it has committed).
  bool in_transaction_ = false;
  std::map<std::string, std::optional<std::string>> pending_;
  std::size_t pending_bytes_ = 0;
  std::vector<std::function<void()>> undo_;
  std::vector<std::pair<std::string, int>> name_changes_;
  std::vector<EtcdEndedListing::Change> listing_changes_;
};

}  // namespace gantry::actors
