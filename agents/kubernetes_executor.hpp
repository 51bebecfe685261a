// Runs a cluster-role agent's replicas in its Kubernetes cluster: one Pod per
// replica, or one Volcano Job (batch.volcano.sh/v1alpha1) per part of a
// dispatch, whose tasks are the job's own (Volcano's plugins find tasks by
// name) with the part's replicas of each; the member's Volcano makes, names
// and places the pods. Pods carry gantry.io/* labels (a Volcano pod: its
// task's, plus the index in its name) that map them back to replicas; one
// pod watch (list + watch, re-listing when compacted) turns their ends into
// replica exits, queued for the agent's event loop behind an eventfd.
//
// Exits: Succeeded -> 0; Failed -> the first terminated container's exitCode
// (or 1); a pod deleted, by kill() or by anyone else -> 137 with signal 9.
// Pods outlive the agent: a restarted agent finds them with adopt().
#pragma once

#include <condition_variable>
#include <deque>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agents/agent_settings.hpp"
#include "agents/executor.hpp"
#include "kube/client.hpp"
#include "kube/reflector.hpp"

namespace gantry::agents {

// Where a run's plugin files are in its pods (pods mode), as Volcano's
// plugins mount them: the svc plugin's host lists from a ConfigMap at
// /etc/volcano, the ssh plugin's keys and config from a Secret at its
// --ssh-key-file-path.
struct PluginMounts {
  std::string config_map;  // "" when the run has none
  std::vector<std::string> volcano_files;
  std::string secret;  // "" when the job has no ssh plugin
  std::vector<std::string> ssh_files;
  std::string ssh_dir;
};

class KubernetesExecutor final : public Executor {
 public:
  // Resolves kAuto with a discovery request and starts the pod watch. Throws
  // hub::FieldError for an agent identity that is not a label value, and
  // std::runtime_error when the API server cannot be reached for discovery.
  KubernetesExecutor(kube::Client& client, KubernetesExecutorOptions options);
  ~KubernetesExecutor() override;  // shutdown()
  KubernetesExecutor(const KubernetesExecutor&) = delete;
  KubernetesExecutor& operator=(const KubernetesExecutor&) = delete;

  std::string check(const protocol::JobSpec& job) const override;  // e.g. a container without image
  std::string check_split(const protocol::JobSpec& job, std::int32_t parts) const override;
  std::uint16_t pick_rendezvous_port() override { return options_.rendezvous_port; }
  // A replica runs once its pod is Running; until then the pod's reason
  // (Unschedulable, ErrImagePull, ...) says why it waits.
  bool reports_running() const override { return true; }
  // The replica's pod's log through the API server (the newest run's pod
  // when the job ran here more than once), of the container kubectl logs
  // reads by default.
  std::unique_ptr<LogSource> open_log(const protocol::LogsRequest& request,
                                      std::string& why) override;
  void collect_progress(std::vector<ReplicaProgress>& out) override;
  // Pods mode: creates the replica's Pod. Volcano mode: records it for started_all().
  void start(const ReplicaLaunch& launch, TimeMs now) override;
  // Volcano mode: creates the part's Job, or raises its tasks' replicas when
  // replicas were added to a running part. A refusal ends the recorded replicas.
  void started_all(DispatchId dispatch, TimeMs now) override;
  // Volcano mode: kills are applied by the next collect_exits() (the wake fd
  // says so): with every replica of the part stopped the Job is deleted (its
  // pods go with it); replicas of a shrink (a task's highest indices) by
  // lowering their task's replicas, as Volcano scales a Job down.
  void kill(const ReplicaKey& key) override;
  std::optional<TimeMs> next_deadline() const override { return std::nullopt; }
  int wake_fd() const override { return wake_fd_; }  // eventfd, readable when exits are queued
  void collect_exits(TimeMs now, std::vector<ReplicaExit>& out) override;
  void shutdown() override;  // stops the watch; does NOT delete pods (they outlive the agent)

  // Gantry's objects still in the cluster (after an agent restart): one entry
  // per replica pod, ordered by dispatch and rank. Waits for the watch's first
  // list (throws std::runtime_error when it does not come within 30 s). The
  // replicas that have not ended are tracked from then on: their exits come
  // through collect_exits().
  using Adopted = AdoptedReplica;
  std::vector<Adopted> adopt();
  // Whether this executor created `pod` since it started (adopted pods are
  // not): the agent's node pool holds what those take, Kubernetes counts the
  // rest. Thread-safe (the Kubernetes view asks from its watch thread).
  bool started_here(const nlohmann::json& pod) const;

  bool volcano_mode() const { return volcano_; }

 private:
  // Volcano mode: a pod of the part's Volcano Job is replica `index` of the
  // Job's task number `task` (the job's task in spec order); which rank that
  // is, the executor knows from start() (or assigns on adopt()).
  struct VolcanoSlot {
    DispatchId dispatch = 0;
    std::uint32_t task = 0;
    std::int32_t index = 0;
    auto operator<=>(const VolcanoSlot&) const = default;
  };
  // A pod of this agent as the watch last showed it.
  struct PodView {
    Adopted replica;
    int signal = 0;
    std::string volcano_job;  // the Volcano Job that owns it, "" for a bare pod
    std::optional<VolcanoSlot> slot;  // Volcano mode; replica.key.rank is known once resolved
    bool resolved = true;     // replica.key names the replica (a Volcano pod: slot looked up)
    bool running = false;     // phase Running
    std::string waiting;      // why a Pending pod waits
    std::string log_container;  // gantryctl logs reads it: kubectl logs' default
  };
  std::unordered_set<DispatchId> started_here_;  // guarded by mutex_
  struct Replica {
    std::string pod{};          // its pod's name
    std::string volcano_job{};  // Volcano mode: the part's Job
    std::optional<VolcanoSlot> slot{};  // Volcano mode
    bool created = false;       // the API server accepted the pod (or its Job)
    bool seen = false;          // the watch has shown the pod
    bool kill_requested = false;
    bool running_reported = false;
    std::string waiting_reported{};
  };
  // The objects of one run (dispatch) here: deleted once it has ended and
  // keep_ended newer runs have ended after it.
  struct RunObjects {
    std::vector<std::string> pods;
    std::string service;      // its headless Service (pods mode), "" when none
    std::string volcano_job;  // Volcano mode
    std::string config_map;   // the plugins' files (pods mode), "" when none
    std::string secret;       // the ssh plugin's keys (pods mode), "" when none
    std::size_t live = 0;     // replicas not yet ended
    // Volcano mode: a pod went while its Job stayed, and Volcano creates a
    // missing pod again; the Job goes as soon as the run has ended.
    bool volcano_recreates = false;
  };
  // Volcano mode: the part's Volcano Job, one task per task of the job (in
  // spec order, so the job's task number is the Job's), each with the part's
  // replicas of it. Agent thread only.
  struct VolcanoRun {
    std::string name;
    std::string master_addr;                // rank 0's name: "<vjob>-<task>-0.<vjob>"
    nlohmann::json manifest;                // until created
    std::vector<std::int32_t> replicas;     // per task, as start() and kill() want them
    std::vector<std::int32_t> applied;      // per task, as the API server has them
    std::vector<ReplicaKey> recorded;       // started since the last started_all()
    bool created = false;
  };

  static std::optional<std::pair<std::string, PodView>> read_pod(const nlohmann::json& pod);
  static std::optional<VolcanoSlot> volcano_slot(const nlohmann::json& pod, DispatchId dispatch);
  void start_pod(const ReplicaLaunch& launch);
  std::string create(const std::string& collection, const std::string& name,
                     const nlohmann::json& object);
  void record_volcano_replica(const ReplicaLaunch& launch);
  std::string create_volcano_job(VolcanoRun& run);
  std::string scale_volcano_job(VolcanoRun& run);
  void kill_volcano_replica(const ReplicaKey& key);
  void apply_volcano_kills();
  void scale_down(VolcanoRun& run, const std::vector<VolcanoSlot>& slots);
  bool resolve(PodView& view) const;  // under mutex_
  void delete_recreating_volcano_jobs();
  void resolve_adopted_volcano_pods();  // under mutex_
  void ensure_service(const ReplicaLaunch& launch);
  // Pods mode: a run's job with Volcano's svc plugin on, and hosts[task][index],
  // every replica's name in the job's Service.
  struct GangNames {
    protocol::JobSpec with_svc;
    std::vector<std::vector<std::string>> hosts;
  };
  const GangNames& gang_names(const ReplicaLaunch& launch);
  PluginMounts plugin_mounts(const ReplicaLaunch& launch, const GangNames& names);
  void create_or_fail(const std::string& plural, nlohmann::json object);
  void note_object(DispatchId dispatch, const std::string& pod, const std::string& volcano_job);
  void delete_ended_runs();
  void delete_object(const std::string& path);
  void delete_volcano_job(DispatchId dispatch, const std::string& job);

  // Reflector handlers (its thread).
  void on_list(const std::vector<nlohmann::json>& pods);
  void on_event(const std::string& type, const nlohmann::json& pod);
  void report_if_missing(const ReplicaKey& key, const std::string& pod);

  // Under mutex_.
  void apply(const PodView& view);
  void pod_gone(const ReplicaKey& key, const std::string& pod);
  void queue_exit(const ReplicaKey& key, int exit_code, int signal);

  std::string pods_path() const;
  std::string volcano_jobs_path() const;

  kube::Client& client_;
  const KubernetesExecutorOptions options_;
  bool volcano_ = false;
  int wake_fd_ = -1;

  mutable std::mutex mutex_;
  std::condition_variable listed_;
  bool synced_ = false;                  // the watch's first list arrived
  std::map<std::string, PodView> pods_;  // by pod name
  std::unordered_map<ReplicaKey, Replica, ReplicaKeyHash> replicas_;  // not yet ended
  std::vector<ReplicaExit> exits_;                                    // queued for collect_exits()
  std::vector<ReplicaProgress> progress_;  // queued for collect_progress()
  std::map<DispatchId, RunObjects> runs_;  // guarded by mutex_
  std::deque<DispatchId> ended_runs_;      // oldest first; guarded by mutex_
  std::map<std::string, DispatchId> services_;  // agent thread: which run each Service selects
  std::map<DispatchId, PluginMounts> plugin_mounts_;  // agent thread: made per run
  std::map<DispatchId, GangNames> gang_names_;        // agent thread: made per run

  std::map<DispatchId, VolcanoRun> volcano_runs_;  // agent thread only
  std::map<VolcanoSlot, std::uint32_t> volcano_ranks_;  // guarded by mutex_: slot -> rank
  std::vector<ReplicaKey> volcano_kills_;  // guarded by mutex_: for apply_volcano_kills()
  std::unique_ptr<kube::Reflector> reflector_;
};

}  // namespace gantry::agents
