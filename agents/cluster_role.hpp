// The cluster role of gantry-agent (docs/agents.md): one per member cluster,
// holding the hub session. On top of the agent loop it listens for its
// node-role agents' NodeReports, keeps the Kubernetes view of Nodes and Pods
// (when given an API server), renews its Lease (when elected), and computes
// OCM's placement scores (written to an AddOnPlacementScore when asked).
// With an API server, the cluster takes no work ("syncing") and no scores
// are computed until the view has listed every Node and Pod; the Lease
// renewal and the score writes run on a BackgroundWorker, never in the loop.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "agents/cluster_nodes.hpp"
#include "agents/kube_nodes.hpp"
#include "agents/lease_elector.hpp"
#include "agents/loop_extension.hpp"
#include "support/curve_keys.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace gantry::kube {
class Client;
}

namespace gantry::agents {

class BackgroundWorker;
class KubeClusterView;
class NodeKeyGate;
class OcmScoreWriter;

// What agent exit status says the Lease was lost (a standby takes over; the
// pod restarts as a standby).
inline constexpr int kLostLeadershipStatus = 4;
// What a cluster-role agent's usage reports say while its Kubernetes view has
// not synced (protocol::UsageReport::not_ready_reason).
inline constexpr const char* kSyncingReason = "syncing";

struct ClusterRoleOptions {
  std::string node_listen;            // where node-role agents report ("" = none)
  TimeMs node_stale_ms = 15'000;      // a node silent this long is gone
  kube::Client* kube = nullptr;       // Nodes / Pods, Lease, scores; nullptr: bare machines
  OwnPodPredicate is_own;             // Gantry's own pods (with `kube`)
  std::optional<LeaseOptions> lease;  // renewed while serving (with `kube`)
  TimeMs lease_renew_ms = 5'000;      // between successful renewals
  TimeMs lease_retry_ms = 2'000;      // after a renewal that failed
  // client-go's RenewDeadline: without a successful renewal for this long
  // (one that never answers included) the Lease counts as lost. Shorter than
  // the lease duration, so this agent stops before a standby may take over.
  TimeMs lease_renew_deadline_ms = 10'000;
  std::string ocm_namespace;  // write AddOnPlacementScore there ("" = don't)
  TimeMs scores_interval_ms = 30'000;
  // Node changes (GPU use moves with every report) reach the core, and the
  // hub, at most this often: one usage report per interval, not per node.
  TimeMs nodes_apply_interval_ms = 1'000;

  // With a keypair the node socket is a CurveZMQ server that lets in only the
  // node-role agents whose public key is in node_keys; without, plaintext.
  std::optional<support::CurveKeyPair> node_keypair;
  std::vector<std::string> node_keys;  // Z85
};

class ClusterRole final : public LoopExtension {
 public:
  // Binds the node socket and starts the Kubernetes view. Throws
  // std::runtime_error naming the flag whose value cannot be used.
  explicit ClusterRole(ClusterRoleOptions options);
  ~ClusterRole() override;

  const std::string& node_endpoint() const { return node_endpoint_; }  // as bound

  // Before the loop runs (its first usage report goes out on the hub's
  // Welcome): with a Kubernetes view not yet synced, the core says "syncing".
  void prepare(AgentCore& core);

  void add_poll_items(std::vector<zmq_pollitem_t>& items) override;
  void on_polled(const zmq_pollitem_t* items, std::size_t count, TimeMs now, AgentCore& core,
                 Outbox& out) override;
  std::optional<TimeMs> next_deadline() const override;
  int stop_status() const override { return stop_status_; }
  // Nodes whose node-role agent reports (logs, tests).
  std::size_t reporting_nodes() const { return nodes_.reporting(); }
  // Node-role agents the node socket refused for their key (logs, tests).
  std::size_t refused_node_keys() const;
  // A Lease renewal is waiting on the API server (tests).
  bool renewing() const { return renewal_in_flight_; }

 private:
  void receive_reports(TimeMs now, const std::string& cluster);
  void on_view_changed(TimeMs now, AgentCore& core, Outbox& out);
  void apply_nodes(TimeMs now, AgentCore& core, Outbox& out);
  void on_timers(TimeMs now, AgentCore& core, Outbox& out);
  void tend_lease(TimeMs now);
  void start_renewal(TimeMs now);
  void on_renewed(TimeMs started, bool leads, const std::string& holder);
  void lose_lease(const std::string& why);
  void refresh_scores(AgentCore& core, Outbox& out);
  void start_score_write(const protocol::PlacementScores& scores);

  ClusterRoleOptions options_;
  std::unique_ptr<zmq::context_t> context_;
  std::unique_ptr<NodeKeyGate> node_key_gate_;  // bound before nodes_socket_, with keys
  std::unique_ptr<zmq::socket_t> nodes_socket_;
  std::string node_endpoint_;
  ClusterNodes nodes_;
  bool nodes_changed_ = false;
  TimeMs next_nodes_apply_ = 0;
  std::unique_ptr<KubeClusterView> view_;
  bool awaiting_sync_ = false;  // a view that has not listed every Node and Pod yet
  std::unique_ptr<LeaseElector> lease_;
  std::unique_ptr<OcmScoreWriter> ocm_;
  // After lease_ and ocm_: destroyed (joined) first, while what its work uses lives.
  std::unique_ptr<BackgroundWorker> worker_;
  TimeMs next_renew_ = 0;
  std::optional<TimeMs> lease_deadline_;  // lost unless renewed by then
  bool renewal_in_flight_ = false;
  bool score_write_in_flight_ = false;
  TimeMs next_scores_ = 0;
  int stop_status_ = -1;
};

// Tries the Lease every `retry` until this candidate holds it; false when
// `stop_fd` turned readable first.
bool wait_for_leadership(LeaseElector& lease, int stop_fd, std::chrono::milliseconds retry);

}  // namespace gantry::agents
