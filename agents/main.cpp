// gantry-agent: runs one member cluster's replicas for the hub.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>

#include "agents/agent_core.hpp"
#include "agents/agent_keys.hpp"
#include "agents/agent_loop.hpp"
#include "agents/agent_options.hpp"
#include "agents/cluster_role.hpp"
#include "agents/kubernetes_executor.hpp"
#include "agents/node_role.hpp"
#include "agents/process_executor.hpp"
#include "agents/replica_user.hpp"
#include "agents/signal_pipe.hpp"
#include "agents/sim_executor.hpp"
#include "config/command_line.hpp"
#include "config/inventory.hpp"
#include "kube/client.hpp"
#include "kube/cluster_access.hpp"
#include "support/log_format.hpp"
#include "support/metrics_endpoint.hpp"

namespace {

using namespace gantry;

constexpr int kUsageError = 2;

// --cluster wins over the inventory's cluster.name, so one inventory file can
// describe several identical member clusters.
std::string resolve_cluster(const agents::AgentOptions& options,
                            const config::Inventory& inventory) {
  if (options.cluster.empty() && inventory.cluster_name.empty()) {
    throw std::invalid_argument("--cluster: is required (the inventory names no cluster)");
  }
  return options.cluster.empty() ? inventory.cluster_name : options.cluster;
}

// Who the process executor's replicas run as (nullopt: as the agent itself),
// settled before anything starts: an agent that would run them as root
// without being told to refuses to start at all. Throws
// std::invalid_argument naming the flags.
std::optional<agents::ReplicaUser> replica_user(const agents::AgentOptions& options) {
  if (options.executor != "process" || options.role == "node") return std::nullopt;
  std::optional<agents::ReplicaUser> user =
      agents::replica_user_for(options.run_as, options.allow_root, ::geteuid());
  if (::geteuid() == 0 && (!user || user->uid == 0)) {
    spdlog::warn(
        "--allow-root: the process executor runs every replica as ROOT: any job sent to this "
        "cluster can do anything on this machine; give --run-as USER to run them unprivileged");
  } else if (user) {
    spdlog::info("process executor: replicas run as {} (uid {}, gid {})", user->name, user->uid,
                 user->gid);
    if (::geteuid() != 0)
      spdlog::warn(
          "--run-as {}: the agent is not root: without CAP_SETUID and CAP_SETGID every "
          "replica fails to start",
          user->name);
  }
  return user;
}

std::unique_ptr<agents::Executor> make_executor(const agents::AgentOptions& options,
                                                const std::optional<agents::ReplicaUser>& user,
                                                const std::string& cluster, kube::Client* kube) {
  if (options.executor == "kubernetes") {
    agents::KubernetesExecutorOptions kubernetes = options.kubernetes;
    // The cluster's name, not the pod's: a new leader adopts what the old one started.
    kubernetes.agent_identity = cluster;
    return std::make_unique<agents::KubernetesExecutor>(*kube, kubernetes);
  }
  if (options.executor == "process") {
    const std::string dir = options.work_dir.empty() ? "./var/agent-" + cluster : options.work_dir;
    if (const std::string why = user ? agents::why_unreachable(*user, dir) : ""; !why.empty()) {
      spdlog::warn(
          "--run-as {}: {}: its replicas will not find their plugin files or elastic "
          "state under --work-dir {}",
          user->name, why, dir);
    }
    return std::make_unique<agents::ProcessExecutor>(dir, user, options.state_dir);
  }
  return std::make_unique<agents::SimExecutor>();
}

// Elastic runs' membership files (docs/elastic.md) live in the work directory.
agents::AgentCoreOptions core_options(const agents::AgentOptions& options,
                                      const std::string& cluster) {
  const std::string dir = options.work_dir.empty() ? "./var/agent-" + cluster : options.work_dir;
  agents::AgentCoreOptions core = options.core;
  core.elastic_state_dir = dir + "/elastic";
  return core;
}

// A leader change or a restart: what the previous agent started keeps
// running, and this one takes it back before its first Hello.
void adopt_runs(agents::Executor& executor, agents::AgentCore& core) {
  std::vector<agents::AdoptedReplica> adopted;
  if (auto* kubernetes = dynamic_cast<agents::KubernetesExecutor*>(&executor))
    adopted = kubernetes->adopt();
  else if (auto* processes = dynamic_cast<agents::ProcessExecutor*>(&executor))
    adopted = processes->adopt();
  core.adopt(adopted);
  if (!adopted.empty())
    spdlog::info("took back {} replica(s) a previous agent started", adopted.size());
}

// This agent's /metrics, /healthz and /readyz (docs/metrics.md); none
// without --http-listen. The token defaults to <work-dir>/metrics.token.
// While `standing_by` says so (a cluster-role agent waiting for the Lease),
// /healthz answers, for the pod's liveness probe, /readyz says it stands by,
// and /metrics has no series: a standby is no disconnected agent
// (GantryAgentDisconnected).
std::unique_ptr<support::MetricsEndpoint> serve_metrics(
    const agents::AgentOptions& options, const std::string& cluster,
    const agents::AgentMetrics& metrics, const std::atomic<bool>* standing_by = nullptr) {
  if (options.http.listen.empty()) return nullptr;
  support::MetricsEndpointOptions endpoint{options.http, options.insecure};
  if (endpoint.http.token_file.empty()) {
    const std::filesystem::path dir =
        options.work_dir.empty() ? "./var/agent-" + cluster : options.work_dir;
    std::filesystem::create_directories(dir);
    endpoint.http.token_file = dir / "metrics.token";
  }
  support::MetricsSources sources;
  const auto standby = [standing_by] { return standing_by != nullptr && standing_by->load(); };
  sources.metrics = [&metrics, cluster, role = options.role, standby] {
    if (standby()) return std::optional<std::string>("");
    return std::optional(agents::render_agent_metrics(metrics, cluster, role));
  };
  sources.not_ready = [&metrics, role = options.role, standby] {
    if (standby())
      return std::optional<std::string>("standing by: another cluster-role agent holds the Lease");
    return std::optional(agents::agent_not_ready_reason(metrics, role));
  };
  return std::make_unique<support::MetricsEndpoint>(endpoint, std::move(sources));
}

int serve_standalone(const agents::AgentOptions& options,
                     const std::optional<agents::ReplicaUser>& user,
                     const agents::AgentKeys& keys) {
  config::Inventory inventory;
  std::string cluster;
  try {
    inventory = config::load_inventory(options.inventory_path);
    cluster = resolve_cluster(options, inventory);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gantry-agent: inventory %s: %s\n", options.inventory_path.c_str(),
                 e.what());
    return kUsageError;
  }
  // Handlers before the ZeroMQ context starts its threads; SIGPIPE is an
  // error return on a closed log pipe, not a reason to die.
  agents::SignalPipe stop({SIGINT, SIGTERM});
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<agents::Executor> executor = make_executor(options, user, cluster, nullptr);
  agents::AgentCore core(cluster, inventory, *executor, core_options(options, cluster));
  adopt_runs(*executor, core);
  agents::AgentMetrics metrics;
  const auto endpoint = serve_metrics(options, cluster, metrics);
  agents::AgentLoop loop(
      {options.hub_endpoint, options.session, options.test_faults, nullptr, keys.hub, &metrics},
      core, *executor);
  spdlog::info("cluster {}: {} nodes, {} executor", cluster, inventory.nodes.size(),
               options.executor);
  const int status = loop.run(stop.fd());
  spdlog::info("stopped");
  return status;
}

std::string node_name(const agents::AgentOptions& options) {
  if (!options.node_name.empty()) return options.node_name;
  if (const char* from_pod = std::getenv("NODE_NAME"); from_pod != nullptr && *from_pod != 0)
    return from_pod;
  char host[HOST_NAME_MAX + 1] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

int serve_node(const agents::AgentOptions& options, const agents::AgentKeys& keys) {
  agents::SignalPipe stop({SIGINT, SIGTERM});
  std::signal(SIGPIPE, SIG_IGN);
  agents::NodeRoleOptions node;
  node.cluster_agent_endpoint = options.cluster_agent_endpoint;
  node.cluster = options.cluster;
  node.node = node_name(options);
  node.report_interval_ms = options.report_interval_ms;
  node.nvml_library = options.nvml_library;
  node.keys = keys.cluster_agent;
  agents::AgentMetrics metrics;
  node.metrics = &metrics;
  const auto endpoint = serve_metrics(options, options.cluster, metrics);
  spdlog::info("node {}: reporting to {} every {} ms", node.node, node.cluster_agent_endpoint,
               node.report_interval_ms);
  const int status = agents::run_node_role(node, stop.fd());
  spdlog::info("stopped");
  return status;
}

std::optional<kube::Client> kubernetes_client(const agents::AgentOptions& options) {
  if (options.kubeconfig.empty()) return std::nullopt;
  try {
    if (options.kubeconfig == "in-cluster")
      return std::optional<kube::Client>(std::in_place, kube::in_cluster_access());
    return std::optional<kube::Client>(std::in_place, kube::load_kubeconfig(options.kubeconfig));
  } catch (const std::exception& unusable) {
    throw std::runtime_error("--kubeconfig " + options.kubeconfig + ": " + unusable.what());
  }
}

// The pods Gantry's node pool accounts for: those this agent's kubernetes
// executor started. Pods a predecessor started are Kubernetes' to count.
agents::OwnPodPredicate own_pods(agents::Executor& executor) {
  auto* kubernetes = dynamic_cast<agents::KubernetesExecutor*>(&executor);
  if (kubernetes == nullptr) return [](const nlohmann::json&) { return false; };
  return [kubernetes](const nlohmann::json& pod) { return kubernetes->started_here(pod); };
}

agents::ClusterRoleOptions cluster_role_options(const agents::AgentOptions& options,
                                                const agents::AgentKeys& keys, kube::Client* kube,
                                                agents::Executor& executor) {
  agents::ClusterRoleOptions role;
  role.node_listen = options.node_listen;
  role.node_keypair = keys.node_server;
  role.node_keys = keys.node_keys;
  role.node_stale_ms = 3 * static_cast<agents::TimeMs>(options.report_interval_ms);
  role.kube = kube;
  role.is_own = own_pods(executor);
  if (!options.lease_name.empty())
    role.lease =
        agents::LeaseOptions{options.lease_namespace, options.lease_name, options.identity};
  role.ocm_namespace = options.ocm_namespace;
  return role;
}

int serve_cluster(const agents::AgentOptions& options,
                  const std::optional<agents::ReplicaUser>& user, const agents::AgentKeys& keys) {
  agents::SignalPipe stop({SIGINT, SIGTERM});
  std::signal(SIGPIPE, SIG_IGN);
  std::optional<kube::Client> kube = kubernetes_client(options);
  kube::Client* client = kube ? &*kube : nullptr;
  const std::string& cluster = options.cluster;
  agents::AgentMetrics metrics;
  // Served from the start: a standby answers its liveness probe too.
  std::atomic<bool> standing_by{!options.lease_name.empty()};
  const auto endpoint = serve_metrics(options, cluster, metrics, &standing_by);
  if (!options.lease_name.empty()) {
    agents::LeaseElector candidate(
        *client,
        agents::LeaseOptions{options.lease_namespace, options.lease_name, options.identity});
    if (!agents::wait_for_leadership(candidate, stop.fd(), std::chrono::seconds(2))) return 0;
  }
  standing_by = false;
  std::unique_ptr<agents::Executor> executor = make_executor(options, user, cluster, client);
  agents::ClusterRole role(cluster_role_options(options, keys, client, *executor));
  agents::AgentCore core(cluster, protocol::Labels{}, *executor, core_options(options, cluster));
  role.prepare(core);
  adopt_runs(*executor, core);
  agents::AgentLoop loop(
      {options.hub_endpoint, options.session, options.test_faults, &role, keys.hub, &metrics}, core,
      *executor);
  spdlog::info("cluster {}: cluster role, nodes from {}, node reports on {}, {} executor", cluster,
               kube ? "Kubernetes" : "node-role agents",
               role.node_endpoint().empty() ? "(none)" : role.node_endpoint(), options.executor);
  const int status = loop.run(stop.fd());
  spdlog::info("stopped");
  return status;
}

int serve(const agents::AgentOptions& options, const agents::AgentKeys& keys) {
  if (options.role == "node") return serve_node(options, keys);
  std::optional<agents::ReplicaUser> user;
  try {
    user = replica_user(options);
  } catch (const std::invalid_argument& refusal) {
    std::fprintf(stderr, "gantry-agent: %s\n", refusal.what());
    return kUsageError;
  }
  if (options.role == "cluster") return serve_cluster(options, user, keys);
  return serve_standalone(options, user, keys);
}

void warn_if_insecure(const agents::AgentOptions& options) {
  if (!options.insecure) return;
  spdlog::warn(
      "*** --insecure: {} PLAINTEXT and UNAUTHENTICATED: anyone who reaches {} can read "
      "what passes (jobs' environment included) and speak for this {} ***",
      options.role == "node"         ? "the reports to the cluster-role agent are"
      : !options.node_listen.empty() ? "the hub connection and the node socket are"
                                     : "the hub connection is",
      options.role == "node" ? "that socket" : "them", options.role == "node" ? "node" : "cluster");
}

}  // namespace

int main(int argc, char** argv) {
  agents::AgentOptions options;
  if (const auto exit_code = command_line::parse_or_exit_code("gantry-agent", GANTRY_VERSION, argc,
                                                              argv, agents::parse_agent_options,
                                                              agents::agent_usage(), options))
    return *exit_code;
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  support::use_log_format(options.log_format);
  agents::AgentKeys keys;
  try {
    keys = agents::load_agent_keys(options, agents::process_key_environment());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gantry-agent: %s\n", e.what());
    return kUsageError;
  }
  warn_if_insecure(options);
  try {
    return serve(options, keys);
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
}
