#include "agents/agent_options.hpp"

#include "config/command_line.hpp"
#include "config/http_endpoint_flags.hpp"
#include "config/log_format_flag.hpp"

namespace gantry::agents {

namespace {

namespace cl = command_line;

const cl::Wording kWording{"{}: needs a value", "{}: unknown option", "unexpected argument \"{}\""};

cl::Reader<std::int32_t> up_to(std::int32_t max) {
  return cl::positive<std::int32_t>("must be a whole number from 1 to " + std::to_string(max), max);
}

std::string executor(const std::string& text) {
  if (text != "sim" && text != "process" && text != "kubernetes")
    throw std::invalid_argument("must be sim, process or kubernetes");
  return text;
}

std::string role(const std::string& text) {
  if (text != "standalone" && text != "node" && text != "cluster")
    throw std::invalid_argument("must be standalone, node or cluster");
  return text;
}

std::string endpoint(const std::string& text) {
  if (text.rfind("tcp://", 0) != 0 && text.rfind("ipc://", 0) != 0)
    throw std::invalid_argument("must be tcp://HOST:PORT");
  return text;
}

std::string not_empty(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("must not be empty");
  return text;
}

void define_kubernetes_executor(CLI::App& app, AgentOptions& options) {
  cl::add_read<std::string>(app, "--member-queue", options.kubernetes.member_queue, not_empty,
                            "kubernetes executor: the member's Volcano queue for the Jobs it "
                            "creates, unless the job's queue names one (annotation "
                            "gantry.io/member-queue; default: Volcano's default)")
      ->type_name("NAME");
  cl::add_read<std::uint16_t>(
      app, "--rendezvous-port", options.kubernetes.rendezvous_port,
      [](const std::string& text) { return static_cast<std::uint16_t>(up_to(65535)(text)); },
      "kubernetes executor: MASTER_PORT of a gang's pods (default 23456)")
      ->type_name("N");
  app.add_flag("--cross-cluster-rendezvous", options.kubernetes.cross_cluster_rendezvous,
               "kubernetes executor: run parts of gangs split over clusters (their pods meet at "
               "--advertise-address of the agent holding part 0, which must route to rank 0's "
               "pod); without it such parts are refused");
  cl::add_read<std::size_t>(
      app, "--keep-ended", options.kubernetes.keep_ended,
      [](const std::string& text) { return static_cast<std::size_t>(up_to(100000)(text)); },
      "kubernetes executor: how many ended runs keep their pods (for logs) before the "
      "oldest are deleted (default 20)")
      ->type_name("N");
}

void define_roles(CLI::App& app, AgentOptions& options) {
  constexpr std::int32_t kMaxMs = 3600 * 1000;
  cl::add_read<std::string>(app, "--role", options.role, role,
                            "standalone (default: the nodes of --inventory), node (one per "
                            "node, reports to --cluster-agent) or cluster (one per cluster, "
                            "holds the hub session)")
      ->type_name("ROLE");
  cl::add_read<std::string>(app, "--cluster-agent", options.cluster_agent_endpoint, endpoint,
                            "node role: where the cluster-role agent listens (required)")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::string>(app, "--node-name", options.node_name, not_empty,
                            "node role: this node's name (default $NODE_NAME, else the host name)")
      ->type_name("NAME");
  cl::add_read(app, "--report-interval-ms", options.report_interval_ms, up_to(kMaxMs),
               "node role: how often the node reports (default 5000)")
      ->type_name("N");
  cl::add_read<std::string>(app, "--nvml-library", options.nvml_library, not_empty,
                            "node role: NVML to load (default libnvidia-ml.so.1)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--node-keys", options.node_keys_file, not_empty,
                            "cluster role: node-role agents' public keys it accepts besides its "
                            "own --key's, one key file or 40-character key per line")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--cluster-key", options.cluster_key_file, not_empty,
                            "node role: the cluster-role agent's public key (default: the "
                            "public key of --key, one keypair shared by the cluster's agents)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--node-listen", options.node_listen, endpoint,
                            "cluster role: where node-role agents report")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::string>(app, "--kubeconfig", options.kubeconfig, not_empty,
                            "cluster role: the cluster's Kubernetes API server, or in-cluster")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--lease-namespace", options.lease_namespace, not_empty,
                            "cluster role: elect a leader with a coordination.k8s.io Lease")
      ->type_name("NS");
  cl::add_read<std::string>(app, "--lease-name", options.lease_name, not_empty,
                            "cluster role: the Lease's name")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--identity", options.identity, not_empty,
                            "cluster role: this candidate's name in the Lease (the pod name)")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--namespace", options.kubernetes.namespace_, not_empty,
                            "kubernetes executor: where jobs' pods go (default default)")
      ->type_name("NS");
  cl::add_read<std::string>(app, "--scheduler-name", options.kubernetes.scheduler_name, not_empty,
                            "kubernetes executor: pods' schedulerName (default: bound to the "
                            "planned node)")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--ocm-namespace", options.ocm_namespace, not_empty,
                            "cluster role: write OCM's AddOnPlacementScore in this namespace")
      ->type_name("NS");
  define_kubernetes_executor(app, options);
}

// What each role needs, named by flag.
void check_role(const AgentOptions& options) {
  // The default role's flags say just "is required", as before roles existed.
  const auto require = [](bool present, const std::string& flag, const std::string& role) {
    if (present) return;
    throw std::invalid_argument(flag + ": is required" +
                                (role == "standalone" ? "" : " with --role " + role));
  };
  if (options.role == "node") {
    require(!options.cluster_agent_endpoint.empty(), "--cluster-agent", "node");
    return;
  }
  require(!options.hub_endpoint.empty(), "--hub", options.role);
  if (options.role == "standalone") {
    require(!options.inventory_path.empty(), "--inventory", "standalone");
    if (options.executor == "kubernetes")
      throw std::invalid_argument(
          "--executor: kubernetes needs --role cluster (got \"kubernetes\")");
    return;
  }
  require(!options.cluster.empty(), "--cluster", "cluster");
  if (!options.inventory_path.empty())
    throw std::invalid_argument(
        "--inventory: a cluster-role agent learns its nodes from "
        "Kubernetes or its node-role agents (got \"" +
        options.inventory_path + "\")");
  const int lease_flags =
      !options.lease_namespace.empty() + !options.lease_name.empty() + !options.identity.empty();
  if (lease_flags != 0 && lease_flags != 3)
    throw std::invalid_argument(
        "--lease-namespace, --lease-name and --identity: give all three "
        "or none");
  if (lease_flags == 3) require(!options.kubeconfig.empty(), "--kubeconfig", "cluster and a Lease");
  if (options.executor == "kubernetes")
    require(!options.kubeconfig.empty(), "--kubeconfig", "cluster and --executor kubernetes");
  if (!options.ocm_namespace.empty())
    require(!options.kubeconfig.empty(), "--kubeconfig", "cluster and --ocm-namespace");
  if (options.kubeconfig.empty())
    require(!options.node_listen.empty(), "--node-listen", "cluster and no --kubeconfig");
}

std::string address(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("must name a host or address");
  return text;
}

// Repeatable, unlike the other flags: each SPEC adds a fault.
CLI::Option* add_test_faults(CLI::App& app, TestFaults& faults) {
  return app
      .add_option_function<std::vector<std::string>>(
          "--test-fault",
          [&faults](const std::vector<std::string>& specs) {
            for (const std::string& spec : specs) {
              try {
                add_test_fault(spec, faults);
              } catch (const std::invalid_argument& refusal) {
                throw CLI::ValidationError("--test-fault",
                                           std::string(refusal.what()) + " (got \"" + spec + "\")");
              }
            }
          },
          "for tests only: drop-prepares=N (the first N Prepares are lost), reject-prepares "
          "(every Prepare is rejected), exit-after-admit (exit with status 3 right after the "
          "first Admit); repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("SPEC")
      ->group("");  // for tests: not in --help
}

void define(CLI::App& app, AgentOptions& options) {
  constexpr std::int32_t kMaxMs = 3600 * 1000;
  cl::configure(
      app,
      "usage: gantry-agent --hub tcp://HOST:PORT --inventory FILE [--cluster NAME]\n"
      "       gantry-agent --role node --cluster-agent tcp://HOST:PORT [--node-name N]\n"
      "                    [--cluster-key FILE]\n"
      "       gantry-agent --role cluster --hub tcp://HOST:PORT --cluster NAME\n"
      "                    [--node-listen tcp://HOST:PORT [--node-keys FILE]]\n"
      "                    [--kubeconfig FILE|in-cluster]\n"
      "                    [--lease-namespace NS --lease-name NAME --identity ID]\n"
      "                    [--executor sim|process|kubernetes] [--namespace NS]\n"
      "                    [--ocm-namespace NS] [--member-queue NAME]\n"
      "                    [--rendezvous-port N] [--cross-cluster-rendezvous] [--keep-ended N]\n"
      "       process executor: [--run-as USER] [--allow-root] [--state DIR]\n"
      "       keys:        --hub-key FILE --key FILE (or $GANTRY_HUB_KEY, $GANTRY_KEY)\n"
      "                    | --insecure\n"
      "       common:      [--heartbeat-ms N] [--liveness N]\n"
      "                    [--max-backoff-ms N] [--work-dir DIR] [--log-level LEVEL]\n"
      "                    [--log-format text|json]\n"
      "                    [--advertise-address HOST] [--prepare-hold-ms N]\n"
      "                    [--pending-give-up-ms N]\n"
      "                    [--http-listen HOST:PORT [--http-cert FILE --http-key FILE]\n"
      "                     [--metrics-token-file FILE]]\n"
      "       gantry-agent --version\n");
  cl::add_text(app, "--hub", options.hub_endpoint,
               "where the hub listens for agents (required but for --role node);\n"
               "several hubs sharing one store: A,B,... tried in turn")
      ->type_name("tcp://HOST:PORT");
  cl::add_text(app, "--inventory", options.inventory_path,
               "standalone: the cluster's nodes: .yaml inventory or openb .csv (required)")
      ->type_name("FILE");
  cl::add_text(app, "--cluster", options.cluster, "defaults to the inventory's cluster.name")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--hub-key", options.hub_key_file, not_empty,
                            "the hub's public key file (default $GANTRY_HUB_KEY)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--key", options.key_file, not_empty,
                            "this agent's keypair file, gantryctl keys generate NAME "
                            "(default $GANTRY_KEY)")
      ->type_name("FILE");
  app.add_flag("--insecure", options.insecure,
               "plaintext, no keys: anyone who reaches the sockets can speak for this cluster");
  cl::add_read<std::string>(app, "--executor", options.executor, executor,
                            "sim, process (replicas as local processes) or kubernetes (Pods "
                            "or a Volcano Job; --role cluster) (default sim)")
      ->type_name("sim|process|kubernetes");
  cl::add_read(app, "--heartbeat-ms", options.session.heartbeat_ms, up_to(kMaxMs),
               "heartbeat interval until the hub's Welcome sets it (default 1000)")
      ->type_name("N");
  cl::add_read(app, "--liveness", options.session.liveness, up_to(1000),
               "silent heartbeats before the hub counts as dead, until the hub's Welcome "
               "sets it to the fence timeout (default 3)")
      ->type_name("N");
  cl::add_read(app, "--max-backoff-ms", options.session.max_backoff_ms, up_to(kMaxMs),
               "cap on the reconnect backoff (default 32000)")
      ->type_name("N");
  cl::add_text(app, "--work-dir", options.work_dir,
               "process executor logs (default ./var/agent-<cluster>)")
      ->type_name("DIR");
  cl::add_text(app, "--state", options.state_dir,
               "process executor: where each run is recorded before it starts, so that a "
               "restarted agent takes back what still runs and reports what ended (default "
               "<work-dir>/.agent-state). Runs outlive the agent under gantry-run-supervisor; "
               "cut off from the hub past the fence timeout the hub gives (Welcome: heartbeat x "
               "liveness, from its lost grace), "
               "they are stopped (self-fencing, docs/agents.md)")
      ->type_name("DIR");
  cl::add_read<std::string>(app, "--run-as", options.run_as, not_empty,
                            "process executor: run replicas as this user (name or uid), never "
                            "root unless --allow-root; needed when the agent runs as root")
      ->type_name("USER");
  app.add_flag("--allow-root", options.allow_root,
               "process executor: allow replicas to run as root (an agent running as root "
               "without --run-as, or --run-as root); any job sent here then owns this machine");
  cl::add_read<std::string>(app, "--advertise-address", options.core.advertise_address, address,
                            "the rendezvous host this agent names when it holds part 0 of a "
                            "gang: reachable from every cluster (default 127.0.0.1)")
      ->type_name("HOST");
  cl::add_read<TimeMs>(
      app, "--prepare-hold-ms", options.core.prepare_hold_ms,
      [](const std::string& text) -> TimeMs { return up_to(kMaxMs)(text); },
      "how long an admitted part's resources stay held without a Commit "
      "(default 60000)")
      ->type_name("N");
  cl::add_read<TimeMs>(
      app, "--pending-give-up-ms", options.core.pending_give_up_ms,
      cl::number_from<TimeMs>(0, TimeMs{24} * kMaxMs,
                              "must be a whole number from 0 to " + std::to_string(24 * kMaxMs)),
      "how long a committed part's replicas may wait to run (Kubernetes pods Pending) "
      "before it is handed back to the hub to be placed elsewhere; 0: forever "
      "(default 300000)")
      ->type_name("N");
  define_roles(app, options);
  cl::add_http_endpoint_flags(app, options.http, "<work-dir>/metrics.token");
  add_test_faults(app, options.test_faults);
  cl::add_log_level(app, options.log_level);
  cl::add_log_format(app, options.log_format);
}

}  // namespace

AgentOptions parse_agent_options(const std::vector<std::string>& args) {
  AgentOptions options = cl::parse_options("gantry-agent", define, args, kWording);
  if (options.help) return options;
  check_role(options);
  cl::check_http_endpoint_flags(options.http);
  return options;
}

std::string agent_usage() {
  return cl::usage("gantry-agent", define);
}

}  // namespace gantry::agents
