// The Karmada gateway's decisions, without sockets, threads or clocks: it
// speaks for every Karmada member cluster on the hub's agent protocol, as an
// agent speaks for its own cluster (docs/karmada.md).
//
// - Karmada Clusters become hub sessions whose nodes come from the cluster's
//   resource models (karmada/cluster_view.hpp).
// - ResourceBindings scheduled by Gantry (a kind it schedules, and
//   schedulerName gantry or suspended) become Gantry jobs; a binding deleted
//   in Karmada cancels its job.
// - Two-phase dispatch: a Prepare of a binding's job is admitted (the hub has
//   fitted it to the reported nodes; Karmada's own member schedulers bind the
//   pods); when every part is committed the binding is released with its
//   clusters written (one merge patch, so a split is atomic); a Cancel of a
//   committed part re-suspends the binding (reclaim, preemption, cancel).
// - Status: status.aggregatedStatus of a released binding, per cluster,
//   becomes each part's StatusUpdate.
// - Applies that fail end: a part whose member refuses the workload
//   (applied false with an appliedMessage), or that Karmada has not applied
//   within apply_timeout_ms, is answered with a Reject, as an agent refuses
//   a Prepare: the hub requeues the job, backs the cluster off for it and
//   cancels the other parts; the binding is suspended again.
// - Terminating parts stay counted: a part taken off a cluster (its release
//   withdrawn) keeps its resources allocated in that cluster's UsageReports
//   until Karmada shows its workload gone there (no aggregatedStatus item,
//   the cluster no longer listed) or termination_grace_ms passes, as an
//   agent keeps counting replicas that are still stopping. A Prepare on a
//   cluster whose held room it needs waits unanswered until the room is free,
//   as an agent parks one while its runs stop.
// The I/O around it (karmada/gateway.hpp) feeds it watch events and hub
// frames, and carries out what it puts in a GatewayOutbox.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "hub/job.hpp"
#include "karmada/binding_job.hpp"
#include "karmada/cluster_view.hpp"
#include "karmada/decision.hpp"
#include "karmada/workload_status.hpp"
#include "protocol/messages.hpp"

namespace gantry::karmada {

using DispatchId = hub::DispatchId;
using TimeMs = hub::TimeMs;
using HubMessage = std::variant<protocol::Admit, protocol::Reject, protocol::StatusUpdate>;

// A change the gateway asks of a binding. The writer reads the binding's
// current resourceVersion, patches with it and retries on a conflict.
//
// A split Volcano Job also needs its OverridePolicy (karmada/split_override.hpp)
// in place before Karmada applies it: kWritePolicy is written first and the
// release patch goes only once that write succeeded (a refused write leaves
// the binding suspended and is reported with on_release_failed). kDeletePolicy
// removes an earlier split's policy: before a release to one cluster (so it
// cannot revise the whole job), after a suspension (so it cannot outlive it).
struct BindingWrite {
  enum class Kind { kRelease, kSuspend };
  enum class Policy { kNone, kWritePolicy, kDeletePolicy };
  Kind kind = Kind::kRelease;
  BindingKey key;
  Decision decision;  // kRelease: what to write; kSuspend: the dispatch being stopped
  Policy policy = Policy::kNone;
  nlohmann::json override_policy;  // kWritePolicy: the whole OverridePolicy object
};

struct GatewayOutbox {
  std::vector<std::pair<std::string, HubMessage>> messages;  // cluster -> message, in order
  std::set<std::string> usage_changed;                       // clusters whose nodes changed
  std::vector<std::string> clusters_added;                   // open a hub session
  std::vector<std::string> clusters_removed;                 // close it
  std::vector<BindingKey> submit;                            // submit as Gantry jobs
  std::vector<std::string> cancel_jobs;                      // their binding was deleted
  std::vector<BindingWrite> writes;
  std::vector<std::string> log;  // lines for the gateway's log (the core has no logger)
};

struct GatewayCoreOptions {
  TimeMs apply_timeout_ms = 120000;  // --karmada-apply-timeout-ms
  TimeMs termination_grace_ms = 300000;  // --karmada-termination-grace-ms
};

class GatewayCore {
 public:
  explicit GatewayCore(GatewayCoreOptions options = {}) : options_(options) {}

  // Karmada Cluster objects: a full list (every re-list) or one watch event
  // ("ADDED", "MODIFIED", "DELETED").
  void on_clusters_listed(const std::vector<nlohmann::json>& clusters, GatewayOutbox& out);
  void on_cluster_event(const std::string& type, const nlohmann::json& cluster, GatewayOutbox& out);
  // ResourceBindings, likewise. A re-list that no longer shows a binding is a
  // deletion.
  void on_bindings_listed(const std::vector<nlohmann::json>& bindings, GatewayOutbox& out);
  void on_binding_event(const std::string& type, const nlohmann::json& binding, GatewayOutbox& out);

  // The hub's two-phase dispatch, per cluster session.
  void on_prepare(const std::string& cluster, const protocol::Prepare& prepare, GatewayOutbox& out);
  void on_commit(const std::string& cluster, const protocol::Commit& commit, GatewayOutbox& out);
  void on_abort(const std::string& cluster, const protocol::Abort& abort, GatewayOutbox& out);
  void on_cancel(const std::string& cluster, const protocol::Cancel& cancel, GatewayOutbox& out);
  // The writer could not release the dispatch (its OverridePolicy or the
  // binding patch was refused): its parts are refused as an apply that failed.
  void on_release_failed(DispatchId id, const std::string& reason, GatewayOutbox& out);

  // Time passing: starts the apply clock of parts released since the last
  // call and refuses those past it; starts the clock of terminating holds
  // taken since and drops those past it. The I/O calls it at least once a
  // second and by next_deadline().
  void on_time(TimeMs now, GatewayOutbox& out);
  // The earliest apply or termination deadline running, or 0 when none runs.
  TimeMs next_deadline() const;

  // What a (re)connecting session tells the hub.
  protocol::Hello hello(const std::string& cluster, const std::string& version) const;
  protocol::UsageReport usage_report(const std::string& cluster) const;

  std::vector<std::string> cluster_names() const;
  const ClusterView* find_cluster(const std::string& name) const;
  std::size_t binding_count() const { return bindings_.size(); }
  std::size_t dispatch_count() const { return dispatches_.size(); }
  // Parts taken off `cluster` whose workload Karmada still shows there.
  std::size_t terminating_count(const std::string& cluster) const;

 private:
  struct Part {
    std::string cluster;
    std::map<std::string, std::int32_t> task_replicas;
    bool committed = false;
    bool ended = false;
    bool applied = false;           // Karmada reported its member workload applied
    TimeMs apply_deadline = 0;      // 0 = the clock has not started
    std::string apply_state;        // what Karmada last said while not applied
    protocol::StatusUpdate last;  // the last status sent for it
  };
  struct GatewayDispatch {
    std::string job;
    BindingKey binding;
    std::int32_t parts_expected = 1;
    std::map<std::int32_t, Part> parts;  // by part index
    bool released = false;               // the release patch was asked for
    protocol::JobSpec spec;              // from the Prepare (tasks in the workload's order)
  };
  // A withdrawn part's resources, still counted on its cluster while its
  // member workload terminates.
  struct TerminatingHold {
    BindingKey binding;
    std::string cluster;
    std::vector<protocol::ResourceList> replicas;  // each replica's request
    TimeMs deadline = 0;                           // 0 = the clock has not started
  };
  struct ParkedPrepare {
    std::string cluster;
    protocol::Prepare prepare;
  };
  struct Binding {
    nlohmann::json object;
    bool submitted = false;
    std::optional<DispatchId> dispatch;  // its current dispatch here
  };

  void upsert_cluster(const nlohmann::json& cluster, GatewayOutbox& out);
  void remove_cluster(const std::string& name, GatewayOutbox& out);
  void upsert_binding(const nlohmann::json& binding, GatewayOutbox& out);
  void remove_binding(const BindingKey& key, GatewayOutbox& out);
  void adopt_released(Binding& binding, const BindingKey& key, const Decision& decision);
  void sync_status(const Binding& binding, GatewayOutbox& out);
  // Whether the part's apply failed (and was refused); records its progress.
  bool apply_refused(DispatchId id, std::int32_t index, Part& part, const PartProgress& progress,
                     GatewayOutbox& out);
  void refuse_part(DispatchId id, std::int32_t index, Part& part, std::string reason,
                   GatewayOutbox& out);
  void release_if_all_committed(DispatchId id, GatewayDispatch& dispatch, GatewayOutbox& out);
  BindingWrite release_write(const GatewayDispatch& dispatch, const Decision& decision) const;
  BindingWrite suspend_write(DispatchId id, const GatewayDispatch& dispatch) const;
  void end_part(DispatchId id, Part& part, std::string phase, std::string message,
                GatewayOutbox& out);
  void forget_if_over(DispatchId id);
  std::optional<BindingKey> binding_of_job(const protocol::JobSpec& job) const;
  std::vector<protocol::PlacedReplica> replicas_of(const Part& part) const;
  // Suspends the binding: every committed part leaves its cluster.
  void withdraw_release(DispatchId id, GatewayDispatch& dispatch, GatewayOutbox& out);
  void hold_while_terminating(const GatewayDispatch& dispatch, const Part& part,
                              GatewayOutbox& out);
  void drop_gone_holds(const BindingKey& key, const nlohmann::json* binding, GatewayOutbox& out);
  void drop_hold(std::size_t index, const std::string& why, GatewayOutbox& out);
  // The cluster's reported nodes with its terminating holds counted allocated.
  std::vector<protocol::NodeUsage> nodes_with_holds(const ClusterView& view) const;
  bool blocked_by_holds(const std::string& cluster, const protocol::Prepare& prepare) const;
  void admit(const std::string& cluster, const BindingKey& key, const protocol::Prepare& prepare,
             GatewayOutbox& out);
  void answer_parked(const std::string& cluster, GatewayOutbox& out);
  bool drop_parked(const std::string& cluster, DispatchId id, const std::string& why,
                   GatewayOutbox& out);

  GatewayCoreOptions options_;
  std::map<std::string, ClusterView> clusters_;
  std::map<BindingKey, Binding> bindings_;
  std::map<DispatchId, GatewayDispatch> dispatches_;
  // The final status of each part that ended lately, per cluster: a Hello
  // repeats them, as an agent's does.
  std::map<std::string, std::vector<protocol::StatusUpdate>> ended_;
  std::vector<TerminatingHold> holds_;
  std::vector<ParkedPrepare> parked_;  // Prepares waiting for held room, oldest first
};

// Whether Gantry schedules this binding: its resource is one of
// kScheduledKinds (karmada/scheduled_bindings.hpp), and spec.schedulerName is
// "gantry", or it is suspended for scheduling (by the webhook), or Gantry
// released it before.
bool scheduled_by_gantry(const nlohmann::json& binding);

}  // namespace gantry::karmada
