#include "agents/agent_options.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gantry::agents {
namespace {

AgentOptions parse(std::vector<std::string> args) {
  return parse_agent_options(args);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(AgentOptions, ReadsEveryFlagInBothSpellings) {
  const AgentOptions options = parse({"--hub",
                                      "tcp://127.0.0.1:7800",
                                      "--cluster=east",
                                      "--inventory",
                                      "east.yaml",
                                      "--executor",
                                      "process",
                                      "--heartbeat-ms=250",
                                      "--liveness",
                                      "5",
                                      "--work-dir",
                                      "/tmp/w",
                                      "--log-level",
                                      "debug",
                                      "--max-backoff-ms",
                                      "500",
                                      "--advertise-address",
                                      "10.1.2.3",
                                      "--prepare-hold-ms=1500",
                                      "--test-fault",
                                      "drop-prepares=2",
                                      "--test-fault=exit-after-admit"});
  EXPECT_EQ(options.hub_endpoint, "tcp://127.0.0.1:7800");
  EXPECT_EQ(options.cluster, "east");
  EXPECT_EQ(options.inventory_path, "east.yaml");
  EXPECT_EQ(options.executor, "process");
  EXPECT_EQ(options.session.heartbeat_ms, 250);
  EXPECT_EQ(options.session.liveness, 5);
  EXPECT_EQ(options.work_dir, "/tmp/w");
  EXPECT_EQ(options.log_level, "debug");
  EXPECT_EQ(options.session.max_backoff_ms, 500);
  EXPECT_EQ(options.core.advertise_address, "10.1.2.3");
  EXPECT_EQ(options.core.prepare_hold_ms, 1500);
  // --test-fault is repeatable: every one counts.
  EXPECT_EQ(options.test_faults.drop_prepares, 2);
  EXPECT_TRUE(options.test_faults.exit_after_admit);
  EXPECT_FALSE(options.test_faults.reject_prepares);
}

TEST(AgentOptions, DefaultsMatchTheDocumentation) {
  const AgentOptions options = parse({"--hub", "tcp://h:1", "--inventory", "i.yaml"});
  EXPECT_EQ(options.executor, "sim");
  EXPECT_EQ(options.session.heartbeat_ms, 1000);
  EXPECT_EQ(options.session.liveness, 3);
  EXPECT_TRUE(options.work_dir.empty());  // ./var/agent-<cluster>, resolved by main
  EXPECT_EQ(options.core.advertise_address, "127.0.0.1");
  EXPECT_EQ(options.core.prepare_hold_ms, 60000);
  EXPECT_EQ(options.test_faults.drop_prepares, 0);
  EXPECT_FALSE(options.test_faults.reject_prepares);
  EXPECT_FALSE(options.test_faults.exit_after_admit);
  EXPECT_TRUE(options.run_as.empty());  // as the agent; a root agent then refuses to start
  EXPECT_FALSE(options.allow_root);
}

TEST(AgentOptions, RunAsAndAllowRootAreRead) {
  const AgentOptions options = parse({"--hub", "tcp://h:1", "--inventory", "i.yaml", "--executor",
                                      "process", "--run-as", "nobody", "--allow-root"});
  EXPECT_EQ(options.run_as, "nobody");
  EXPECT_TRUE(options.allow_root);
  EXPECT_EQ(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--run-as", ""}),
            "--run-as: must not be empty (got \"\")");
}

TEST(AgentOptions, UsageLeavesOutTheTestFaultsWhichStillParse) {
  const std::string usage = agent_usage();
  EXPECT_EQ(usage.find("--test-fault"), std::string::npos) << usage;
  EXPECT_NE(usage.find("--prepare-hold-ms"), std::string::npos) << usage;
  EXPECT_NE(usage.find("--advertise-address"), std::string::npos) << usage;
  EXPECT_NE(usage.find("--version"), std::string::npos) << usage;
  const AgentOptions options =
      parse({"--hub", "tcp://h:1", "--inventory", "i.yaml", "--test-fault", "reject-prepares"});
  EXPECT_TRUE(options.test_faults.reject_prepares);
}

TEST(AgentOptions, BadValuesNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--executor", "docker"}),
            "--executor: must be sim, process or kubernetes (got \"docker\")");
  EXPECT_NE(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--heartbeat-ms", "0"})
                .find("--heartbeat-ms"),
            std::string::npos);
  EXPECT_NE(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--liveness", "3x"}).find("3x"),
            std::string::npos);
  EXPECT_EQ(error_of({"--inventory", "i"}), "--hub: is required");
  EXPECT_EQ(error_of({"--hub", "tcp://h:1"}), "--inventory: is required");
  EXPECT_EQ(error_of({"--hub"}), "--hub: needs a value");
  EXPECT_EQ(error_of({"--hub", "x", "--inventory", "i", "--colour", "red"}),
            "--colour: unknown option");
  EXPECT_EQ(error_of({"--hub", "x", "--inventory", "i", "--test-fault", "crash"}),
            "--test-fault: must be drop-prepares=N, reject-prepares or exit-after-admit (got "
            "\"crash\")");
  EXPECT_NE(error_of({"--hub", "x", "--inventory", "i", "--prepare-hold-ms", "0"})
                .find("--prepare-hold-ms"),
            std::string::npos);
  EXPECT_NE(error_of({"--hub", "x", "--inventory", "i", "--advertise-address="})
                .find("--advertise-address"),
            std::string::npos);
}

TEST(AgentOptions, LogFormatAsTheHubTakesIt) {
  EXPECT_EQ(parse({"--hub", "tcp://h:1", "--inventory", "i"}).log_format,
            support::LogFormat::kText);
  EXPECT_EQ(parse({"--hub", "tcp://h:1", "--inventory", "i", "--log-format", "json"}).log_format,
            support::LogFormat::kJson);
  EXPECT_EQ(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--log-format", "JSON"}),
            "--log-format: expected text or json (got \"JSON\")");
  const std::string usage = agent_usage();
  EXPECT_NE(usage.find("[--log-format text|json]"), std::string::npos) << usage;
}

TEST(AgentOptions, HttpEndpointFlagsAsTheHubTakesThem) {
  const std::vector<std::string> base{"--hub", "tcp://h:1", "--inventory", "i"};
  const auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return more;
  };
  EXPECT_TRUE(parse(base).http.listen.empty()) << "not served by default";
  const AgentOptions options =
      parse(with({"--http-listen", "0.0.0.0:9091", "--metrics-token-file", "/run/token"}));
  EXPECT_EQ(options.http.listen, "0.0.0.0:9091");
  EXPECT_EQ(options.http.token_file, "/run/token");
  EXPECT_EQ(error_of(with({"--http-listen", "9091"})),
            "--http-listen: expected HOST:PORT such as 0.0.0.0:8443 (got \"9091\")");
  EXPECT_EQ(error_of(with({"--http-listen", "127.0.0.1:9091", "--http-key", "k.pem"})),
            "--http-key: needs --http-cert (got \"k.pem\")");
  EXPECT_EQ(error_of(with({"--metrics-token-file", "t"})),
            "--metrics-token-file: only with --http-listen (got \"t\")");
}

TEST(AgentOptions, ExecutorAndCoreFlagsArriveInTheSettingsTheyAreHandedAs) {
  const AgentOptions options =
      parse({"--hub", "tcp://hub:7800", "--inventory", "i.yaml", "--member-queue", "research",
             "--rendezvous-port", "29500", "--cross-cluster-rendezvous", "--keep-ended", "3",
             "--pending-give-up-ms", "0"});
  EXPECT_EQ(options.kubernetes.member_queue, "research");
  EXPECT_EQ(options.kubernetes.rendezvous_port, 29500);
  EXPECT_TRUE(options.kubernetes.cross_cluster_rendezvous);
  EXPECT_EQ(options.kubernetes.keep_ended, 3u);
  EXPECT_EQ(options.core.pending_give_up_ms, 0) << "0: a part waits forever";
  const AgentOptions defaults = parse({"--hub", "tcp://hub:7800", "--inventory", "i.yaml"});
  EXPECT_EQ(defaults.kubernetes.rendezvous_port, 23456);
  EXPECT_EQ(defaults.kubernetes.keep_ended, 20u);
  EXPECT_EQ(defaults.core.pending_give_up_ms, 300'000);
  EXPECT_EQ(error_of({"--hub", "x", "--inventory", "i", "--rendezvous-port", "65536"})
                .rfind("--rendezvous-port: must be a whole number from 1 to 65535", 0),
            0u);
}

TEST(AgentOptions, EachRoleNamesTheFlagsItNeeds) {
  const AgentOptions node =
      parse({"--role", "node", "--cluster-agent", "tcp://lab:7810", "--node-name", "gpu-1",
             "--report-interval-ms", "200", "--nvml-library", "/opt/nvml.so"});
  EXPECT_EQ(node.role, "node");
  EXPECT_EQ(node.cluster_agent_endpoint, "tcp://lab:7810");
  EXPECT_EQ(node.node_name, "gpu-1");
  EXPECT_EQ(node.report_interval_ms, 200);
  EXPECT_EQ(node.nvml_library, "/opt/nvml.so");
  EXPECT_EQ(error_of({"--role", "node"}), "--cluster-agent: is required with --role node");

  const AgentOptions cluster = parse({"--role",
                                      "cluster",
                                      "--hub",
                                      "tcp://hub:7800",
                                      "--cluster",
                                      "lab",
                                      "--kubeconfig",
                                      "in-cluster",
                                      "--lease-namespace",
                                      "gantry-system",
                                      "--lease-name",
                                      "lab-agent",
                                      "--identity",
                                      "pod-1",
                                      "--executor",
                                      "kubernetes",
                                      "--namespace",
                                      "jobs",
                                      "--scheduler-name",
                                      "volcano",
                                      "--ocm-namespace",
                                      "lab"});
  EXPECT_EQ(cluster.kubeconfig, "in-cluster");
  EXPECT_EQ(cluster.lease_name, "lab-agent");
  EXPECT_EQ(cluster.kubernetes.namespace_, "jobs");
  EXPECT_EQ(cluster.kubernetes.scheduler_name, "volcano");
  EXPECT_EQ(cluster.ocm_namespace, "lab");
  EXPECT_EQ(error_of({"--role", "cluster", "--hub", "tcp://h:1"}),
            "--cluster: is required with --role cluster");
  EXPECT_EQ(error_of({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "lab"}),
            "--node-listen: is required with --role cluster and no --kubeconfig");
  EXPECT_EQ(error_of({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "lab",
                      "--node-listen", "tcp://*:7810", "--executor", "kubernetes"}),
            "--kubeconfig: is required with --role cluster and --executor kubernetes");
  EXPECT_EQ(error_of({"--role", "cluster", "--hub", "tcp://h:1", "--cluster", "lab", "--kubeconfig",
                      "k", "--lease-name", "x"}),
            "--lease-namespace, --lease-name and --identity: give all three or none");
  EXPECT_EQ(error_of({"--hub", "tcp://h:1", "--inventory", "i", "--executor", "kubernetes"}),
            "--executor: kubernetes needs --role cluster (got \"kubernetes\")");
  EXPECT_EQ(error_of({"--role", "leader"}),
            "--role: must be standalone, node or cluster (got \"leader\")");
}

}  // namespace
}  // namespace gantry::agents
