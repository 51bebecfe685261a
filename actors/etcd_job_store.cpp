#include "actors/etcd_job_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "actors/etcd_job_history.hpp"
#include "support/comma_list.hpp"

namespace gantry::actors {

namespace {

constexpr std::int64_t kScanPage = 500;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::int64_t number_in(const etcd::KeyValue& kv) {
  std::int64_t number = 0;
  const char* end = kv.value.data() + kv.value.size();
  const auto [stop, error] = std::from_chars(kv.value.data(), end, number);
  if (error != std::errc() || stop != end)
    throw std::runtime_error("etcd key " + kv.key + " holds \"" + kv.value.substr(0, 40) +
                             "\", not a number: refusing to read a damaged store");
  return number;
}

std::string endpoint_url(std::string_view host_port, const std::string& text, bool tls) {
  const std::size_t colon = host_port.rfind(':');
  const std::string_view port = colon == std::string_view::npos ? "" : host_port.substr(colon + 1);
  if (colon == 0 || port.empty() ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::runtime_error("\"" + std::string(host_port) + "\" in " + text + " is not HOST:PORT");
  return (tls ? "https://" : "http://") + std::string(host_port);
}

etcd::TransportOptions transport_options(const etcd::Access& access) {
  etcd::TransportOptions options;
  options.access = access;
  return options;
}

}  // namespace

EtcdStoreAddress parse_etcd_store_address(const std::string& text, const etcd::Access& access) {
  constexpr std::string_view kScheme = "etcd://";
  if (!starts_with(text, kScheme))
    throw std::runtime_error("expected etcd://HOST:PORT[,HOST:PORT...][/PREFIX], not " + text);
  std::string_view rest = std::string_view(text).substr(kScheme.size());
  EtcdStoreAddress address;
  address.access = access;
  const std::size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    if (prefix.empty()) throw std::runtime_error("the key prefix in " + text + " is empty");
    address.prefix = std::string(prefix) + "/";
    rest = rest.substr(0, slash);
  }
  for (const std::string& host_port : support::comma_list(rest))
    address.endpoints.push_back(endpoint_url(host_port, text, access.tls.any()));
  return address;
}

bool EndedNames::holds(std::string_view name) const {
  const std::lock_guard lock(mutex_);
  return counts_.find(name) != counts_.end();
}

void EndedNames::change(const std::string& name, int by) {
  const std::lock_guard lock(mutex_);
  const int count = (counts_[name] += by);
  if (count <= 0) counts_.erase(name);
}

EtcdJobStore::EtcdJobStore(EtcdStoreAddress address, WriterClaimOptions claim,
                           EtcdHubPresenceOptions presence)
    : address_(std::move(address)),
      keys_{address_.prefix},
      client_(
          std::make_shared<etcd::Client>(address_.endpoints, transport_options(address_.access))),
      presence_(presence.self.name.empty() ? nullptr
                                           : std::make_unique<EtcdHubPresence>(
                                                 address_.endpoints, address_.access,
                                                 keys_.hub(presence.self.name), presence.self)),
      claim_(std::make_unique<EtcdWriterClaim>(
          address_.endpoints, address_.access, keys_.writer(),
          telling_standby(std::move(claim), std::move(presence.on_standby)))),
      ended_names_(std::make_shared<EndedNames>()) {
  load();
  if (created_) {
    put(keys_.meta("schema"), std::to_string(kEtcdSchemaVersion));
    end_of_write();
    schema_ = kEtcdSchemaVersion;
  }
}

// While it waits, a standby keeps a copy of the store warm (first, so that
// whoever is told it waits may count on the copy) and says who leads.
WriterClaimOptions EtcdJobStore::telling_standby(
    WriterClaimOptions claim, std::function<void(const protocol::HubInfo&)> on_standby) {
  claim.on_wait = [this, on_wait = std::move(claim.on_wait),
                   on_standby = std::move(on_standby)](const std::string& holder) {
    keep_warm_copy();
    if (on_wait) on_wait(holder);
    if (on_standby) on_standby(presence_of_hub(holder));
  };
  return claim;
}

protocol::HubInfo EtcdJobStore::presence_of_hub(const std::string& name) {
  const etcd::RangeResult found = client_->get(keys_.hub(name));
  std::optional<protocol::HubInfo> hub;
  if (!found.kvs.empty()) hub = presence_of(found.kvs.front().value);
  if (!hub) hub.emplace().name = name;  // from a hub that keeps no presence record
  return *hub;
}

std::vector<protocol::HubInfo> EtcdJobStore::hubs() {
  const protocol::HubInfo& self = self_;
  const etcd::RangeResult writer = client_->get(keys_.writer());
  const std::string holder = writer.kvs.empty() ? "" : writer.kvs.front().value;
  protocol::HubInfo leader = self;
  leader.role = holder == self.name ? "leader" : "deposed";
  leader.store = where();
  std::vector<protocol::HubInfo> hubs{leader};
  for (const etcd::KeyValue& kv : client_->range(keys_.hubs()).kvs) {
    std::optional<protocol::HubInfo> hub = presence_of(kv.value);
    if (!hub) {
      spdlog::warn("etcd key {} is not a hub's presence record; not listed", kv.key);
      continue;
    }
    if (hub->name == self.name) continue;
    hub->role = hub->name == holder ? "leader" : "standby";
    hub->store = where();
    hubs.push_back(std::move(*hub));
  }
  return hubs;
}

EtcdJobStore::EtcdJobStore(EtcdStoreAddress address)
    : address_(std::move(address)),
      keys_{address_.prefix},
      client_(
          std::make_shared<etcd::Client>(address_.endpoints, transport_options(address_.access))),
      ended_names_(std::make_shared<EndedNames>()) {
  load();
}

StateSummary EtcdJobStore::inspect(const EtcdStoreAddress& address, std::string& holder) {
  EtcdJobStore store(address);
  const etcd::RangeResult writer = store.client_->get(store.keys_.writer());
  holder = writer.kvs.empty() ? "" : writer.kvs.front().value;
  return store.summary();
}

EtcdJobStore::~EtcdJobStore() = default;

std::string EtcdJobStore::where() const {
  std::string text = "etcd ";
  for (const std::string& endpoint : address_.endpoints)
    text += (text.size() > 5 ? "," : "") + endpoint;
  return text + " prefix " + address_.prefix;
}

std::vector<etcd::KeyValue> EtcdJobStore::scan(const std::string& prefix) const {
  std::vector<etcd::KeyValue> kvs;
  if (startup_copy_) {
    for (auto at = startup_copy_->lower_bound(prefix);
         at != startup_copy_->end() && starts_with(at->first, prefix); ++at)
      kvs.push_back(at->second);
    return kvs;
  }
  client_->scan(prefix, kScanPage, [&](const etcd::KeyValue& kv) { kvs.push_back(kv); });
  return kvs;
}

// While another hub holds the store: a standby keeps a copy of it warm.
void EtcdJobStore::keep_warm_copy() {
  if (warm_) return;
  try {
    warm_ = std::make_unique<EtcdWarmCopy>(client_, address_.prefix);
  } catch (const std::exception& error) {
    spdlog::warn("standing by without a copy of the store ({}): it is read at take-over",
                 error.what());
  }
}

// The copy kept while standing by, caught up with the claim; else a scan.
EtcdWarmCopy::Keys EtcdJobStore::read_all() {
  if (warm_ && claim_) {
    std::optional<EtcdWarmCopy::Keys> copy =
        warm_->take(claim_->revision(), std::chrono::seconds(5));
    warm_.reset();
    if (copy) {
      loaded_warm_ = true;
      spdlog::info("read the store's {} key(s) from the copy kept while standing by", copy->size());
      return std::move(*copy);
    }
    spdlog::warn("the copy kept while standing by did not catch up: reading the store");
  }
  EtcdWarmCopy::Keys keys;
  client_->scan(address_.prefix, kScanPage,
                [&keys](const etcd::KeyValue& kv) { keys.emplace(kv.key, kv); });
  return keys;
}

// Every record is read once here, so a damaged one stops the hub before it
// schedules anything.
void EtcdJobStore::load() {
  startup_copy_ = read_all();
  for (const auto& [key, kv] : *startup_copy_) load_key(kv);
  if (schema_ > kEtcdSchemaVersion)
    throw std::runtime_error(where() + " has schema version " + std::to_string(schema_) +
                             ", written by a newer gantry-hub; this one knows versions up to " +
                             std::to_string(kEtcdSchemaVersion));
  if (schema_ == 0 && (!live_.empty() || !ended_.empty() || generation_ != 0))
    throw std::runtime_error(where() + " holds jobs but no " + keys_.meta("schema") +
                             ": refusing to read a damaged store");
  created_ = schema_ == 0;
}

void EtcdJobStore::load_key(const etcd::KeyValue& kv) {
  const std::string_view key = kv.key;
  if (starts_with(key, keys_.prefix + "meta/")) {
    load_meta(kv);
  } else if (starts_with(key, keys_.jobs())) {
    const auto job = unpack_record<EtcdJob>(kv.key, kv.value);
    const std::int64_t row = EtcdKeys::row_of(key);
    live_[row] = LiveJob{job.name, job.submitted_ms, job.submitter};
    next_row_ = std::max(next_row_, row + 1);
  } else if (starts_with(key, keys_.ended())) {
    const auto job = unpack_record<EtcdEnded>(kv.key, kv.value);
    const std::int64_t row = EtcdKeys::row_of(key);
    ended_[row] =
        EndedJob{job.name, job.submitter, job.submitted_ms, job.finished_ms, job.expires_ms};
    ended_names_->change(job.name, 1);
    next_row_ = std::max(next_row_, row + 1);
  } else if (starts_with(key, keys_.dispatches())) {
    EtcdKeys::row_of(key);
    unpack_record<EtcdDispatch>(kv.key, kv.value);
  } else if (starts_with(key, keys_.queues())) {
    queue_positions_[kv.key.substr(keys_.queues().size())] =
        unpack_record<EtcdQueue>(kv.key, kv.value).position;
  }
}

void EtcdJobStore::load_meta(const etcd::KeyValue& kv) {
  if (kv.key == keys_.meta("schema")) schema_ = number_in(kv);
  if (kv.key == keys_.meta("generation")) generation_ = number_in(kv);
  if (kv.key == keys_.meta("first_generation"))
    first_generation_ = static_cast<std::uint64_t>(std::max<std::int64_t>(1, number_in(kv)));
  if (kv.key == keys_.meta("next_row")) next_row_ = std::max(next_row_, number_in(kv));
}

StateSummary EtcdJobStore::summary() {
  StateSummary summary;
  summary.schema_version = static_cast<int>(schema_);  // 0: nothing stored under the prefix
  summary.unfinished = static_cast<std::int64_t>(live_.size());
  summary.jobs = summary.unfinished + static_cast<std::int64_t>(ended_.size());
  summary.queues = static_cast<std::int64_t>(queue_positions_.size());
  return summary;
}

std::unique_ptr<JobHistory> EtcdJobStore::open_history() const {
  return std::make_unique<EtcdJobHistory>(client_, keys_, ended_names_, ended_listing_);
}

void EtcdJobStore::begin() {
  in_transaction_ = true;
}

bool EtcdJobStore::transaction_full() const {
  // Two more go with every commit: its token and the next row.
  return pending_.size() + 2 >= kMaxOpsPerTransaction || pending_bytes_ >= kMaxTransactionBytes;
}

void EtcdJobStore::put(const std::string& key, std::string value) {
  startup_copy_.reset();  // the store changes from here on
  pending_bytes_ += key.size() + value.size();
  pending_[key] = std::move(value);
}

void EtcdJobStore::remove(const std::string& key) {
  startup_copy_.reset();
  pending_bytes_ += key.size();
  pending_[key] = std::nullopt;
}

// Without begin(), a write commits on its own.
void EtcdJobStore::end_of_write() {
  if (in_transaction_) return;
  try {
    commit();
  } catch (...) {
    rollback();
    throw;
  }
}

void EtcdJobStore::commit() {
  in_transaction_ = false;
  if (!pending_.empty()) send_pending();
  for (const auto& [name, by] : name_changes_) ended_names_->change(name, by);
  ended_listing_->apply(listing_changes_);
  pending_.clear();
  pending_bytes_ = 0;
  undo_.clear();
  name_changes_.clear();
  listing_changes_.clear();
}

// The store actor commits when transaction_full() says so, which keeps a
// transaction within etcd's limits. Only a single write of many keys (a
// pass's dispatch records) can go past them: it is sent in several
// transactions, each within the limits. Such writes are upserts the store
// actor retries if one of them fails.
void EtcdJobStore::send_pending() {
  std::vector<etcd::Op> ops;
  std::size_t bytes = 0;
  for (const auto& [key, value] : pending_) {
    if (ops.size() + 2 >= kMaxOpsPerTransaction || bytes >= kMaxTransactionBytes) {
      send_transaction(std::move(ops));
      ops.clear();
      bytes = 0;
    }
    ops.push_back(value ? etcd::Op::put(key, *value) : etcd::Op::remove(key));
    bytes += key.size() + (value ? value->size() : 0);
  }
  send_transaction(std::move(ops));
}

// One transaction, guarded by the writer claim. An answer lost on the way
// (the connection broke after the request left) leaves it unknown whether
// etcd applied it: the token it wrote tells.
void EtcdJobStore::send_transaction(std::vector<etcd::Op> ops) {
  const std::string token = std::to_string(claim_->revision()) + "/" + std::to_string(++commits_);
  ops.push_back(etcd::Op::put(keys_.meta("commit"), token));
  ops.push_back(etcd::Op::put(keys_.meta("next_row"), std::to_string(next_row_)));
  const std::vector<etcd::Compare> fence{etcd::Compare::create_revision(
      keys_.writer(), etcd::Compare::Result::kEqual, claim_->revision())};
  etcd::TxnResult result;
  try {
    result = client_->txn(fence, ops);
  } catch (const etcd::GrpcError&) {
    throw;  // refused by etcd: not applied
  } catch (const std::exception& error) {
    bool applied = false;
    try {
      const etcd::RangeResult last = client_->get(keys_.meta("commit"));
      applied = !last.kvs.empty() && last.kvs.front().value == token;
    } catch (const std::exception&) {
    }
    if (!applied) throw;
    spdlog::info("{}: a transaction's answer was lost ({}), but etcd had applied it", where(),
                 error.what());
    return;
  }
  if (!result.succeeded)
    throw std::runtime_error(where() + ": this hub's writer claim (" + keys_.writer() +
                             " created at revision " + std::to_string(claim_->revision()) +
                             ") is gone, so nothing was written: another hub may hold the store");
}

void EtcdJobStore::rollback() noexcept {
  for (auto step = undo_.rbegin(); step != undo_.rend(); ++step) (*step)();
  in_transaction_ = false;
  pending_.clear();
  pending_bytes_ = 0;
  undo_.clear();
  name_changes_.clear();
  listing_changes_.clear();
}

std::int64_t EtcdJobStore::add(std::string_view name, std::string_view yaml,
                               std::int64_t submitted_ms, std::string_view submitter,
                               std::string_view spec) {
  const std::int64_t row = next_row_++;
  put(keys_.job(row), pack_record(EtcdJob{std::string(name), std::string(yaml), submitted_ms,
                                          std::string(submitter), std::string(spec)}));
  live_[row] = LiveJob{std::string(name), submitted_ms, std::string(submitter)};
  undo([this, row] { live_.erase(row); });
  end_of_write();
  return row;
}

void EtcdJobStore::finish(const FinishedJob& job) {
  EtcdEnded ended;
  if (const auto live = live_.find(job.row); live != live_.end()) {
    ended.name = live->second.name;
    ended.submitter = live->second.submitter;
    ended.submitted_ms = live->second.submitted_ms;
    undo([this, row = job.row, was = live->second] { live_[row] = was; });
    live_.erase(live);
    remove(keys_.job(job.row));
    remove(keys_.dispatch(job.row));
    name_changes_.emplace_back(ended.name, 1);
  } else if (const auto again = ended_.find(job.row); again != ended_.end()) {
    ended.name = again->second.name;
    ended.submitter = again->second.submitter;
    ended.submitted_ms = again->second.submitted_ms;
  } else {
    return;  // no such job (forgotten already): as an UPDATE of no row
  }
  ended.phase = job.phase;
  ended.finished_ms = job.finished_ms;
  ended.queue = job.queue;
  ended.started_ms = job.started_ms;
  ended.gpu_milli = job.gpu_milli;
  ended.expires_ms = job.expires_ms;
  ended.record = job.record;
  put(keys_.ended_job(job.row), pack_record(ended));
  listing_changes_.push_back(
      {job.row, EndedRow{ended.name, ended.phase, ended.submitted_ms, ended.finished_ms,
                         ended.submitter, ended.queue, ended.started_ms, std::move(ended.record)}});
  const auto before = ended_.find(job.row);
  undo([this, row = job.row,
        was = before == ended_.end() ? std::nullopt : std::optional<EndedJob>(before->second)] {
    if (was)
      ended_[row] = *was;
    else
      ended_.erase(row);
  });
  ended_[job.row] = EndedJob{ended.name, ended.submitter, ended.submitted_ms, ended.finished_ms,
                             ended.expires_ms};
  end_of_write();
}

std::vector<std::string> EtcdJobStore::ended_submitters(std::string_view name) {
  std::vector<std::string> submitters;
  for (const auto& [row, job] : ended_)
    if (job.name == name) submitters.push_back(job.submitter);
  return submitters;
}

void EtcdJobStore::forget_ended_row(std::int64_t row) {
  const auto ended = ended_.find(row);
  if (ended == ended_.end()) return;
  remove(keys_.ended_job(row));
  name_changes_.emplace_back(ended->second.name, -1);
  listing_changes_.push_back({row, std::nullopt});
  undo([this, row, was = ended->second] { ended_[row] = was; });
  ended_.erase(ended);
}

void EtcdJobStore::forget_ended(std::string_view name) {
  std::vector<std::int64_t> rows;
  for (const auto& [row, job] : ended_)
    if (job.name == name) rows.push_back(row);
  for (const std::int64_t row : rows) forget_ended_row(row);
  end_of_write();
}

// A scan of the ended index in memory, at each expiry wake-up; stops where
// the transaction is full (the store actor then looks again at once).
std::int64_t EtcdJobStore::forget_expired(std::int64_t now, std::int64_t ended_by,
                                          std::int64_t limit) {
  std::vector<std::int64_t> rows;
  for (const auto& [row, job] : ended_) {
    if (static_cast<std::int64_t>(rows.size()) >= limit) break;
    if ((job.expires_ms > 0 && job.expires_ms <= now) || job.finished_ms <= ended_by)
      rows.push_back(row);
  }
  std::int64_t forgotten = 0;
  for (const std::int64_t row : rows) {
    if (transaction_full()) break;
    forget_ended_row(row);
    ++forgotten;
  }
  end_of_write();
  return forgotten;
}

std::optional<std::int64_t> EtcdJobStore::next_expiry(std::int64_t keep_finished_ms) {
  std::optional<std::int64_t> next;
  for (const auto& [row, job] : ended_) {
    std::int64_t at = job.finished_ms + keep_finished_ms;
    if (job.expires_ms > 0) at = std::min(at, job.expires_ms);
    next = next ? std::min(*next, at) : at;
  }
  return next;
}

void EtcdJobStore::forget(std::int64_t row) {
  if (const auto live = live_.find(row); live != live_.end()) {
    undo([this, row, was = live->second] { live_[row] = was; });
    live_.erase(live);
    remove(keys_.job(row));
    remove(keys_.dispatch(row));
  }
  forget_ended_row(row);
  end_of_write();
}

// The value the open transaction gives `key`, else etcd's ("" when none).
std::string EtcdJobStore::value_of(const std::string& key) {
  if (const auto pending = pending_.find(key); pending != pending_.end())
    return pending->second.value_or("");
  const etcd::RangeResult current = client_->get(key);
  return current.kvs.empty() ? "" : current.kvs.front().value;
}

void EtcdJobStore::rename(std::int64_t row, std::string_view name) {
  const auto live = live_.find(row);
  if (live == live_.end()) return;
  const std::string key = keys_.job(row);
  auto job = unpack_record<EtcdJob>(key, value_of(key));
  job.name = std::string(name);
  put(key, pack_record(job));
  undo([this, row, was = live->second.name] { live_[row].name = was; });
  live->second.name = job.name;
  end_of_write();
}

std::vector<StoredJob> EtcdJobStore::unfinished() {
  std::map<std::int64_t, StoredDispatch> dispatches;
  for (const etcd::KeyValue& kv : scan(keys_.dispatches()))
    dispatches[EtcdKeys::row_of(kv.key)] =
        stored_dispatch(unpack_record<EtcdDispatch>(kv.key, kv.value));
  std::vector<StoredJob> jobs;
  for (const etcd::KeyValue& kv : scan(keys_.jobs())) {
    const std::int64_t row = EtcdKeys::row_of(kv.key);
    auto job = unpack_record<EtcdJob>(kv.key, kv.value);
    StoredDispatch dispatch;
    if (const auto found = dispatches.find(row); found != dispatches.end())
      dispatch = std::move(found->second);
    jobs.push_back(StoredJob{row, std::move(job.name), std::move(job.yaml), job.submitted_ms,
                             std::move(dispatch), std::move(job.submitter), std::move(job.spec)});
  }
  return jobs;  // key order: row order
}

// For a job that has not ended; a record for any other row would be left behind.
void EtcdJobStore::record_dispatch(std::int64_t row, const StoredDispatch& dispatch) {
  if (!live_.count(row)) return;
  put(keys_.dispatch(row), pack_record(etcd_dispatch(dispatch)));
  end_of_write();
}

void EtcdJobStore::set_cordoned(std::string_view cluster, bool cordoned) {
  const std::string key = keys_.cordoned() + std::string(cluster);
  if (cordoned)
    put(key, "1");
  else
    remove(key);
  end_of_write();
}

std::vector<std::string> EtcdJobStore::cordoned_clusters() {
  std::vector<std::string> names;
  for (const etcd::KeyValue& kv : scan(keys_.cordoned()))
    names.push_back(kv.key.substr(keys_.cordoned().size()));
  return names;
}

void EtcdJobStore::save_queue(std::string_view name, std::string_view yaml) {
  const std::string key(name);
  std::int64_t position = 1;
  for (const auto& [queue, at] : queue_positions_) position = std::max(position, at + 1);
  if (const auto known = queue_positions_.find(key); known != queue_positions_.end()) {
    position = known->second;
  } else {
    queue_positions_[key] = position;
    undo([this, key] { queue_positions_.erase(key); });
  }
  put(keys_.queues() + key, pack_record(EtcdQueue{position, std::string(yaml)}));
  end_of_write();
}

void EtcdJobStore::drop_queue(std::string_view name) {
  const std::string key(name);
  if (const auto known = queue_positions_.find(key); known != queue_positions_.end()) {
    undo([this, key, was = known->second] { queue_positions_[key] = was; });
    queue_positions_.erase(known);
  }
  remove(keys_.queues() + key);
  end_of_write();
}

std::vector<std::string> EtcdJobStore::queues() {
  std::vector<EtcdQueue> queues;
  for (const etcd::KeyValue& kv : scan(keys_.queues()))
    queues.push_back(unpack_record<EtcdQueue>(kv.key, kv.value));
  std::stable_sort(queues.begin(), queues.end(),
                   [](const EtcdQueue& a, const EtcdQueue& b) { return a.position < b.position; });
  std::vector<std::string> yamls;
  for (EtcdQueue& queue : queues) yamls.push_back(std::move(queue.yaml));
  return yamls;
}

void EtcdJobStore::save_priority_class(std::string_view name, std::string_view yaml) {
  put(keys_.priority_classes() + std::string(name), std::string(yaml));
  end_of_write();
}

void EtcdJobStore::drop_priority_class(std::string_view name) {
  remove(keys_.priority_classes() + std::string(name));
  end_of_write();
}

std::vector<std::string> EtcdJobStore::priority_classes() {
  std::vector<std::string> yamls;
  for (const etcd::KeyValue& kv : scan(keys_.priority_classes())) yamls.push_back(kv.value);
  return yamls;
}

std::uint64_t EtcdJobStore::start_generation() {
  const std::int64_t generation =
      generation_ == 0 ? static_cast<std::int64_t>(random_first_generation()) : generation_ + 1;
  put(keys_.meta("generation"), std::to_string(generation));
  if (generation_ == 0) put(keys_.meta("first_generation"), std::to_string(generation));
  end_of_write();
  if (generation_ == 0) first_generation_ = static_cast<std::uint64_t>(generation);
  generation_ = generation;
  return static_cast<std::uint64_t>(generation);
}

}  // namespace gantry::actors
