// One simulated member cluster speaking the agent protocol (version 2) of
// docs/wire-flow.md, without sockets or processes: Hello -> Welcome ->
// UsageReport, heartbeats, for each Prepare an Admit at once (resources held;
// part 0 names a rendezvous), for each Commit StatusUpdate(Running) at once
// and StatusUpdate(Completed) `hold` later, Abort and Cancel releasing, with a
// coalesced UsageReport after each allocation change, as gantry-agent does.
// The hub therefore sees the same message mix as from real agents. Unlike
// gantry-agent it never lets a hold run out: a benchmark's hub commits or
// aborts every part it prepared.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bench/e2e/timeline.hpp"
#include "protocol/messages.hpp"

namespace gantry::bench::e2e {

struct ClusterShape {
  std::uint32_t nodes = 10;
  std::uint32_t gpus_per_node = 8;
  std::int64_t hold_ns = 100'000'000;
  bool usage_reports = true;
};

struct ClusterCounters {
  std::uint64_t prepares = 0;  // Prepare frames (a repeated one counts again)
  std::uint64_t rejects = 0;   // Prepares that did not fit this cluster's nodes
  std::uint64_t commits = 0;   // Commits that started a prepared part
  std::uint64_t aborts = 0;    // Abort frames
  std::uint64_t cancels = 0;
  std::uint64_t usage_reports = 0;
  std::uint64_t hub_errors = 0;  // ErrorReply frames from the hub
  std::uint64_t frames_in = 0;
  std::uint64_t frames_out = 0;
};

class FakeCluster {
 public:
  FakeCluster(std::string name, const ClusterShape& shape, Timeline& timeline);

  const std::string& name() const { return name_; }
  std::string routing_id() const { return "agent/" + name_; }
  bool registered() const { return epoch_ != 0; }
  const ClusterCounters& counters() const { return counters_; }

  std::string hello();
  // Handles one frame from the hub, appending the answers to `out`.
  void on_frame(std::string_view frame, std::int64_t now, std::vector<std::string>& out);
  // Heartbeats and completions due at `now`.
  void on_time(std::int64_t now, std::vector<std::string>& out);
  // One UsageReport if the allocation changed since the last one.
  void flush(std::vector<std::string>& out);
  std::int64_t next_deadline() const;

 private:
  struct Placed {
    std::uint32_t node = 0;
    protocol::ResourceList requests;
  };
  // A prepared part (done_at 0) or a committed one.
  struct Run {
    std::int64_t done_at = 0;
    std::uint64_t dispatch_id = 0;
    std::string job;
    std::string task;
    std::int32_t replicas = 0;
    std::vector<Placed> placed;
  };

  template <class T>
  void send(const T& message, std::vector<std::string>& out);
  void on_welcome(const protocol::Welcome& welcome, std::int64_t now,
                  std::vector<std::string>& out);
  void on_prepare(const protocol::Prepare& prepare, std::int64_t now,
                  std::vector<std::string>& out);
  void on_commit(const protocol::Commit& commit, std::int64_t now, std::vector<std::string>& out);
  // Abort and Cancel: a prepared part is released, a running one ends Aborted.
  void stop(std::uint64_t dispatch_id, std::vector<std::string>& out);
  void record_commit(const std::string& job, std::int64_t now);
  bool place(const protocol::Prepare& prepare, Run& run);
  bool fits(std::uint32_t node, const protocol::ResourceList& requests) const;
  void release(const Run& run);
  void complete(const Run& run, std::vector<std::string>& out);
  protocol::UsageReport usage_report() const;

  std::string name_;
  ClusterShape shape_;
  Timeline& timeline_;
  std::vector<protocol::NodeUsage> nodes_;
  std::unordered_map<std::uint64_t, Run> prepared_;  // by dispatch id
  std::deque<Run> running_;  // one hold for all, so FIFO order is deadline order
  std::unordered_set<std::uint64_t> running_ids_;  // the dispatch ids in running_
  std::uint64_t seq_ = 1;
  std::uint64_t epoch_ = 0;
  std::int64_t heartbeat_ns_ = 1'000'000'000;
  std::int64_t next_heartbeat_ = 0;
  bool usage_changed_ = false;
  ClusterCounters counters_;
};

}  // namespace gantry::bench::e2e
