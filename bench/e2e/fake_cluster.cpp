#include "bench/e2e/fake_cluster.hpp"

#include <algorithm>

#include "bench/e2e/job_yaml.hpp"
#include "protocol/envelope.hpp"

namespace gantry::bench::e2e {

namespace {

constexpr std::int64_t kMilli = 1000;  // wire quantities are milli-units
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
// Where part 0's gang would meet; nothing listens there (no replica runs).
constexpr const char* kRendezvousHost = "127.0.0.1";
constexpr std::int32_t kRendezvousPort = 29500;

protocol::NodeUsage make_node(const std::string& cluster, std::uint32_t index, std::uint32_t gpus) {
  protocol::NodeUsage node;
  node.name = cluster + "-node-" + std::to_string(index);
  node.gpu_model = "H100";
  node.labels = {{"nvidia.com/gpu.product", "H100"}};
  node.allocatable = {{"cpu", 96 * kMilli},
                      {"memory", 1024 * kGiB * kMilli},
                      {"nvidia.com/gpu", std::int64_t{gpus} * kMilli}};
  for (const auto& [resource, amount] : node.allocatable) node.allocated[resource] = 0;
  return node;
}

// What one replica of `task` asks for: the sum over its containers.
protocol::ResourceList replica_requests(const protocol::TaskSpec& task) {
  protocol::ResourceList total;
  for (const protocol::ContainerSpec& container : task.containers) {
    for (const auto& [resource, amount] : container.requests) total[resource] += amount;
  }
  return total;
}

protocol::TaskStatus task_status(const std::string& task, std::int32_t replicas, bool done) {
  protocol::TaskStatus status;
  status.name = task;
  (done ? status.succeeded : status.running) = replicas;
  return status;
}

}  // namespace

FakeCluster::FakeCluster(std::string name, const ClusterShape& shape, Timeline& timeline)
    : name_(std::move(name)), shape_(shape), timeline_(timeline) {
  for (std::uint32_t i = 0; i < shape_.nodes; ++i) {
    nodes_.push_back(make_node(name_, i, shape_.gpus_per_node));
  }
}

template <class T>
void FakeCluster::send(const T& message, std::vector<std::string>& out) {
  out.push_back(protocol::encode(message, seq_++));
  ++counters_.frames_out;
}

std::string FakeCluster::hello() {
  return protocol::encode(protocol::Hello{name_, {{"bench", "e2e"}}, "bench-e2e", {}, {}}, seq_++);
}

void FakeCluster::on_frame(std::string_view frame, std::int64_t now,
                           std::vector<std::string>& out) {
  ++counters_.frames_in;
  protocol::DecodeError error;
  const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) {
    ++counters_.hub_errors;
    return;
  }
  using protocol::MessageType;
  switch (envelope->type) {
    case MessageType::kWelcome:
      if (auto welcome = protocol::decode_payload<protocol::Welcome>(*envelope, error)) {
        on_welcome(*welcome, now, out);
      }
      break;
    case MessageType::kPrepare:
      if (auto prepare = protocol::decode_payload<protocol::Prepare>(*envelope, error)) {
        on_prepare(*prepare, now, out);
      }
      break;
    case MessageType::kCommit:
      if (auto commit = protocol::decode_payload<protocol::Commit>(*envelope, error)) {
        on_commit(*commit, now, out);
      }
      break;
    case MessageType::kAbort:
      if (auto abort = protocol::decode_payload<protocol::Abort>(*envelope, error)) {
        ++counters_.aborts;
        stop(abort->dispatch_id, out);
      }
      break;
    case MessageType::kCancel:
      if (auto cancel = protocol::decode_payload<protocol::Cancel>(*envelope, error)) {
        ++counters_.cancels;
        stop(cancel->dispatch_id, out);
      }
      break;
    case MessageType::kErrorReply:
      ++counters_.hub_errors;
      break;
    default:  // the hub's heartbeat echo: nothing to do, the hub is alive
      break;
  }
}

void FakeCluster::on_welcome(const protocol::Welcome& welcome, std::int64_t now,
                             std::vector<std::string>& out) {
  epoch_ = welcome.hub_epoch;
  heartbeat_ns_ = std::int64_t{welcome.heartbeat_interval_ms} * 1'000'000;
  next_heartbeat_ = now + heartbeat_ns_;
  send(usage_report(), out);  // the hub wants the full node usage first
  usage_changed_ = false;
}

void FakeCluster::on_prepare(const protocol::Prepare& prepare, std::int64_t now,
                             std::vector<std::string>& out) {
  ++counters_.prepares;
  if (const std::optional<std::uint32_t> index = job_index(prepare.job.name);
      index && *index < timeline_.prepare_ns.size() && timeline_.prepare_ns[*index] == 0)
    timeline_.prepare_ns[*index] = now;
  const bool part_zero = prepare.part == 0;
  const protocol::Admit admit{prepare.dispatch_id, prepare.job.name, prepare.part,
                              part_zero ? kRendezvousHost : "", part_zero ? kRendezvousPort : 0};
  const bool held =
      prepared_.count(prepare.dispatch_id) != 0 || running_ids_.count(prepare.dispatch_id) != 0;
  if (held) {  // a repeated Prepare: the same answer, nothing held twice
    send(admit, out);
    return;
  }
  Run run;
  if (!place(prepare, run)) {
    ++counters_.rejects;
    send(protocol::Reject{prepare.dispatch_id, prepare.job.name, "does not fit (bench)",
                          prepare.part},
         out);
    return;
  }
  send(admit, out);
  usage_changed_ = true;
  prepared_.emplace(prepare.dispatch_id, std::move(run));
}

// The Commit is when replicas may start: the moment the benchmark's "submit
// to dispatch" latency ends.
void FakeCluster::on_commit(const protocol::Commit& commit, std::int64_t now,
                            std::vector<std::string>& out) {
  const auto found = prepared_.find(commit.dispatch_id);
  if (found == prepared_.end()) {
    if (running_ids_.count(commit.dispatch_id) ==
        0) {  // a repeated Commit of a running part needs no answer
      send(protocol::Reject{commit.dispatch_id, commit.job, "not prepared here (bench)",
                            commit.part},
           out);
    }
    return;
  }
  ++counters_.commits;
  record_commit(commit.job, now);
  Run run = std::move(found->second);
  prepared_.erase(found);
  run.done_at = now + shape_.hold_ns;
  protocol::StatusUpdate update{run.dispatch_id,
                                run.job,
                                protocol::phase::kRunning,
                                {task_status(run.task, run.replicas, false)},
                                ""};
  send(update, out);
  running_ids_.insert(run.dispatch_id);
  running_.push_back(std::move(run));
}

// Only the first Commit of a job counts: a requeued job's later dispatch
// would otherwise shorten nothing but hide the requeue.
void FakeCluster::record_commit(const std::string& job, std::int64_t now) {
  const std::optional<std::uint32_t> index = job_index(job);
  if (!index || *index >= timeline_.commit_ns.size()) return;
  std::int64_t& at = timeline_.commit_ns[*index];
  if (at != 0) return;
  at = now;
  timeline_.committed.fetch_add(1, std::memory_order_release);
}

// First fit, replica by replica; all or nothing, like the real agent's gang check.
bool FakeCluster::place(const protocol::Prepare& prepare, Run& run) {
  run.dispatch_id = prepare.dispatch_id;
  run.job = prepare.job.name;
  for (const protocol::TaskSpec& task : prepare.job.tasks) {
    const auto wanted = prepare.task_replicas.find(task.name);
    const std::int32_t replicas = wanted == prepare.task_replicas.end() ? 0 : wanted->second;
    const protocol::ResourceList requests = replica_requests(task);
    for (std::int32_t r = 0; r < replicas; ++r) {
      std::uint32_t node = 0;
      while (node < nodes_.size() && !fits(node, requests)) ++node;
      if (node == nodes_.size()) {
        release(run);
        return false;
      }
      for (const auto& [resource, amount] : requests) nodes_[node].allocated[resource] += amount;
      run.placed.push_back(Placed{node, requests});
    }
    run.task = task.name;
    run.replicas += replicas;
  }
  return true;
}

bool FakeCluster::fits(std::uint32_t node, const protocol::ResourceList& requests) const {
  const protocol::NodeUsage& usage = nodes_[node];
  for (const auto& [resource, amount] : requests) {
    const auto capacity = usage.allocatable.find(resource);
    const std::int64_t free =
        capacity == usage.allocatable.end() ? 0 : capacity->second - usage.allocated.at(resource);
    if (amount > free) return false;
  }
  return true;
}

void FakeCluster::release(const Run& run) {
  for (const Placed& placed : run.placed) {
    for (const auto& [resource, amount] : placed.requests) {
      nodes_[placed.node].allocated[resource] -= amount;
    }
  }
}

void FakeCluster::complete(const Run& run, std::vector<std::string>& out) {
  release(run);
  protocol::StatusUpdate update{run.dispatch_id,
                                run.job,
                                protocol::phase::kCompleted,
                                {task_status(run.task, run.replicas, true)},
                                ""};
  send(update, out);
  usage_changed_ = true;
}

void FakeCluster::stop(std::uint64_t dispatch_id, std::vector<std::string>& out) {
  if (const auto held = prepared_.find(dispatch_id); held != prepared_.end()) {
    release(held->second);
    prepared_.erase(held);
    usage_changed_ = true;
    return;
  }
  const auto found = std::find_if(running_.begin(), running_.end(),
                                  [&](const Run& run) { return run.dispatch_id == dispatch_id; });
  if (found == running_.end()) return;  // unknown or over
  release(*found);
  send(protocol::StatusUpdate{found->dispatch_id, found->job, protocol::phase::kAborted, {}, ""},
       out);
  running_ids_.erase(found->dispatch_id);
  running_.erase(found);
  usage_changed_ = true;
}

void FakeCluster::on_time(std::int64_t now, std::vector<std::string>& out) {
  while (!running_.empty() && running_.front().done_at <= now) {
    complete(running_.front(), out);
    running_ids_.erase(running_.front().dispatch_id);
    running_.pop_front();
  }
  if (registered() && now >= next_heartbeat_) {
    send(protocol::Heartbeat{name_, epoch_}, out);
    next_heartbeat_ = now + heartbeat_ns_;
  }
}

void FakeCluster::flush(std::vector<std::string>& out) {
  if (!usage_changed_ || !shape_.usage_reports || !registered()) return;
  send(usage_report(), out);
  ++counters_.usage_reports;
  usage_changed_ = false;
}

std::int64_t FakeCluster::next_deadline() const {
  std::int64_t deadline = registered() ? next_heartbeat_ : INT64_MAX;
  if (!running_.empty()) deadline = std::min(deadline, running_.front().done_at);
  return deadline;
}

protocol::UsageReport FakeCluster::usage_report() const {
  protocol::UsageReport report;
  report.cluster = name_;
  report.nodes = nodes_;
  for (const Run& run : running_) report.accounted_dispatches.push_back(run.dispatch_id);
  for (const auto& [id, run] : prepared_) report.accounted_dispatches.push_back(id);
  std::sort(report.accounted_dispatches.begin(), report.accounted_dispatches.end());
  return report;
}

}  // namespace gantry::bench::e2e
