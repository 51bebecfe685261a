// The cluster role's live Kubernetes view: every Node and Pod, kept current by
// two reflectors (list + watch, re-list on 410), and the usable nodes computed
// from them on demand (agents/kube_nodes.hpp). The reflectors' threads change
// the state; the agent loop reads it, woken through an eventfd.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/kube_nodes.hpp"
#include "kube/client.hpp"
#include "kube/reflector.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class KubeClusterView {
 public:
  static constexpr const char* kNodesPath = "/api/v1/nodes";
  static constexpr const char* kPodsPath = "/api/v1/pods";

  // `client` must outlive the view. `is_own` tells Gantry's own pods (not
  // subtracted from their nodes); it is called under the view's lock.
  // Throws std::system_error when no eventfd can be had.
  KubeClusterView(kube::Client& client, OwnPodPredicate is_own);
  ~KubeClusterView();  // stop()
  KubeClusterView(const KubeClusterView&) = delete;
  KubeClusterView& operator=(const KubeClusterView&) = delete;

  void start();
  void stop();  // returns within ~1 s

  // usable_nodes() of the objects seen so far, by node name. Throws
  // hub::FieldError when an object holds a bad quantity.
  std::vector<protocol::NodeUsage> snapshot() const;
  // True once both Nodes and Pods have been listed: before that a snapshot
  // would count nodes without their pods.
  bool synced() const;

  // Readable (POLLIN) after any change to the objects since the last
  // clear_changed(); never blocks the writers.
  int changed_fd() const { return changed_fd_; }
  void clear_changed();

  // Lists done by both reflectors together: 2 after the first lists, one more
  // on every re-list (after a 410 Expired).
  std::uint64_t relists() const;

 private:
  // Objects by namespace/name (cluster-scoped: by name).
  using Objects = std::map<std::string, nlohmann::json>;

  kube::Reflector::Handlers handlers_for(Objects& objects, std::atomic<bool>& listed);
  void signal_changed();

  const OwnPodPredicate is_own_;
  mutable std::mutex mutex_;
  Objects nodes_;  // guarded by mutex_
  Objects pods_;   // guarded by mutex_
  std::atomic<bool> nodes_listed_{false};
  std::atomic<bool> pods_listed_{false};
  int changed_fd_ = -1;
  // Declared last: destroyed (stopped) first, while what their handlers touch lives.
  kube::Reflector node_reflector_;
  kube::Reflector pod_reflector_;
};

}  // namespace gantry::agents
