// What the agent's parts run by, each part's settings in one struct: filled
// once from gantry-agent's command line (agents/agent_options.cpp, which
// holds them whole) or by a test, and handed to the part as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "agents/executor.hpp"

namespace gantry::agents {

// The hub session's timing (agents/hub_session.hpp).
struct SessionTiming {
  std::int32_t heartbeat_ms = 1000;  // until the hub's Welcome says otherwise
  std::int32_t liveness = 3;
  std::int32_t initial_backoff_ms = 1000;
  std::int32_t max_backoff_ms = 32000;
};

// The agent core's admission and run policy (agents/agent_core.hpp).
struct AgentCoreOptions {
  // The rendezvous host this agent gives for part 0 (MASTER_ADDR of every
  // replica of the gang): an address the other clusters' replicas can reach.
  std::string advertise_address = "127.0.0.1";
  // How long an admitted part stays held without a Commit.
  TimeMs prepare_hold_ms = 60'000;
  // Where an elastic run's membership file is kept and rewritten on every
  // resize (GANTRY_ELASTIC_STATE, docs/elastic.md); "" writes none.
  std::string elastic_state_dir{};
  // How long a committed part may wait for its replicas to run, when its
  // executor says when they do (Kubernetes pods Pending: no node takes them,
  // an image cannot be pulled), before it is stopped and handed back to the
  // hub as a refused part, to be placed elsewhere; 0: it waits forever.
  TimeMs pending_give_up_ms = 300'000;
};

// The kubernetes executor (agents/kubernetes_executor.hpp).
struct KubernetesExecutorOptions {
  std::string namespace_ = "default";
  std::string
      agent_identity{};  // label gantry.io/agent=<identity>: which agent's objects these are
  std::string scheduler_name{};  // "" -> pods are bound to the planned node (spec.nodeName);
                                 // else spec.schedulerName + nodeSelector kubernetes.io/hostname
  enum class Mode {
    kAuto,
    kPods,
    kVolcanoJob
  } mode = Mode::kAuto;                   // auto: Volcano Job when
                                          // GET /apis/batch.volcano.sh/v1alpha1 answers 200
  std::string member_queue{};             // Volcano spec.queue when the Prepare names none
  std::uint16_t rendezvous_port = 23456;  // MASTER_PORT in the pods (each has its own address)
  // Parts of gangs split over clusters run, meeting at the part-0 agent's
  // advertised address; otherwise they are refused (no rendezvous across clusters).
  bool cross_cluster_rendezvous = false;
  std::size_t keep_ended = 20;  // ended runs whose objects stay (for logs); older ones are deleted
};

}  // namespace gantry::agents
