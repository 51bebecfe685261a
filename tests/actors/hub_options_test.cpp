#include "actors/hub_options.hpp"

#include <gtest/gtest.h>

#include "actors/store_choice.hpp"
#include "support/temp_dir.hpp"

namespace gantry::actors {
namespace {

TEST(HubOptionsTest, DefaultsMatchTheDocumentedOnes) {
  const HubCommandLine parsed = parse_hub_command_line({});
  EXPECT_EQ(parsed.options.agents_endpoint, "tcp://127.0.0.1:7800");
  EXPECT_EQ(parsed.options.admin_endpoint, "tcp://127.0.0.1:7801");
  EXPECT_EQ(parsed.options.state_dir, "./var");
  EXPECT_EQ(parsed.options.settings.agents.heartbeat_interval.count(), 1000);
  EXPECT_EQ(parsed.options.settings.agents.liveness, 3);
  EXPECT_FALSE(parsed.options.settings.recovery_grace.has_value());
  EXPECT_EQ(parsed.options.settings.scheduling.placement.name(), "binpack");
  EXPECT_EQ(parsed.options.settings.agents.agent_lease.count(), 30'000);
  EXPECT_EQ(parsed.options.settings.agents.lost_grace.count(), 120'000);
  EXPECT_EQ(parsed.options.settings.prepare_timeout.count(), 10'000);
  EXPECT_EQ(parsed.options.settings.scheduling.reservations, 1u);
}

TEST(HubOptionsTest, ReadsEveryFlag) {
  const HubCommandLine parsed = parse_hub_command_line({"--agents",
                                                        "tcp://0.0.0.0:9000",
                                                        "--admin",
                                                        "tcp://127.0.0.1:*",
                                                        "--state",
                                                        "/tmp/s",
                                                        "--heartbeat-ms",
                                                        "250",
                                                        "--liveness",
                                                        "5",
                                                        "--recovery-grace-ms",
                                                        "30000",
                                                        "--log-level",
                                                        "debug",
                                                        "--placement",
                                                        "gpu-available",
                                                        "--agent-lease",
                                                        "1500ms",
                                                        "--lost-grace",
                                                        "1m30s",
                                                        "--prepare-timeout",
                                                        "2s",
                                                        "--backfill-reservations",
                                                        "0",
                                                        "--reclaim-spares-after",
                                                        "48h"});
  EXPECT_EQ(parsed.options.agents_endpoint, "tcp://0.0.0.0:9000");
  EXPECT_EQ(parsed.options.admin_endpoint, "tcp://127.0.0.1:*");
  EXPECT_EQ(parsed.options.state_dir, "/tmp/s");
  EXPECT_EQ(parsed.options.settings.agents.heartbeat_interval.count(), 250);
  EXPECT_EQ(parsed.options.settings.agents.liveness, 5);
  EXPECT_EQ(parsed.options.settings.recovery_grace->count(), 30000);
  EXPECT_EQ(parsed.log_level, "debug");
  EXPECT_EQ(parsed.options.settings.scheduling.placement.name(), "gpu-available");
  EXPECT_EQ(parsed.options.settings.agents.agent_lease.count(), 1500);
  EXPECT_EQ(parsed.options.settings.agents.lost_grace.count(), 90'000);
  EXPECT_EQ(parsed.options.settings.prepare_timeout.count(), 2000);
  EXPECT_EQ(parsed.options.settings.scheduling.reservations, 0u);
  EXPECT_EQ(parsed.options.settings.scheduling.reclaim_spares_after_ms, 48 * 3'600'000);
}

std::string refusal(std::vector<std::string> args) {
  try {
    parse_hub_command_line(args);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(HubOptionsTest, BackfillReservationsOutOfRangeNamesTheFlagAndValue) {
  EXPECT_EQ(refusal({"--backfill-reservations", "-2"}),
            "--backfill-reservations: expected a whole number from 0 to 1000 (got \"-2\")");
}

TEST(HubOptionsTest, StoreIsSqliteByDefaultOrAnEtcdUrlAndABadOneIsNamed) {
  EXPECT_EQ(parse_hub_command_line({}).options.store, "");
  EXPECT_EQ(
      parse_hub_command_line({"--store", "etcd://10.0.0.1:2379,10.0.0.2:2379/ml"}).options.store,
      "etcd://10.0.0.1:2379,10.0.0.2:2379/ml");
  EXPECT_EQ(refusal({"--store", "etcd://10.0.0.1"}),
            "--store: \"10.0.0.1\" in etcd://10.0.0.1 is not HOST:PORT (got \"etcd://10.0.0.1\")");
}

// etcdctl's --cacert, --cert, --key and --user, for the etcd store; the
// password only from a file.
TEST(HubOptionsTest, StoreTlsAndCredentialsAreReadAndThePasswordComesFromItsFile) {
  const support::TempDir dir;
  const std::string ca = dir.write("ca.pem", "CA").string();
  const std::string cert = dir.write("hub.pem", "CERT").string();
  const std::string key = dir.write("hub-key.pem", "KEY").string();
  const std::string password = dir.write("password", "pass word\n").string();
  const HubCommandLine parsed = parse_hub_command_line(
      {"--store", "etcd://10.0.0.1:2379", "--store-cacert", ca, "--store-cert", cert, "--store-key",
       key, "--store-user", "gantry-hub", "--store-password-file", password});
  const etcd::Access& access = parsed.options.store_access;
  EXPECT_EQ(access.tls.ca_file, ca);
  EXPECT_EQ(access.tls.cert_file, cert);
  EXPECT_EQ(access.tls.key_file, key);
  EXPECT_EQ(access.auth.user, "gantry-hub");
  EXPECT_EQ(access.auth.password, "pass word") << "the trailing newline is not part of it";
  EXPECT_EQ(
      parse_hub_command_line({"--store", "etcd://10.0.0.1:2379"}).options.store_access.tls.any(),
      false);
}

TEST(HubOptionsTest, StoreTlsAndCredentialFlagsAreRefusedWhenTheyCannotWork) {
  const support::TempDir dir;
  const std::string file = dir.write("hub.pem", "CERT").string();
  const std::string empty = dir.write("empty", "\n").string();
  const std::string store[] = {"--store", "etcd://10.0.0.1:2379"};
  const auto with_store = [&](std::vector<std::string> args) {
    args.insert(args.begin(), std::begin(store), std::end(store));
    return refusal(args);
  };
  EXPECT_EQ(refusal({"--store-cacert", file}),
            "--store-cacert: only with --store etcd://... (got \"" + file + "\")");
  EXPECT_EQ(refusal({"--store-user", "gantry"}),
            "--store-user: only with --store etcd://... (got \"gantry\")");
  EXPECT_EQ(with_store({"--store-cert", file}),
            "--store-cert: needs --store-key (got \"" + file + "\")");
  EXPECT_EQ(with_store({"--store-key", file}),
            "--store-key: needs --store-cert (got \"" + file + "\")");
  EXPECT_EQ(with_store({"--store-user", "gantry"}),
            "--store-user: needs --store-password-file (got \"gantry\")");
  EXPECT_EQ(with_store({"--store-password-file", file}),
            "--store-password-file: needs --store-user (got \"" + file + "\")");
  EXPECT_EQ(with_store({"--store-user", "gantry", "--store-password-file", empty}),
            "--store-password-file: the file is empty (got \"" + empty + "\")");
  EXPECT_EQ(with_store({"--store-user", "gantry", "--store-password-file", "/nonexistent/pw"}),
            "--store-password-file: cannot read the file (got \"/nonexistent/pw\")");
  EXPECT_EQ(with_store({"--store-cacert", "/nonexistent/ca.pem"}),
            "--store-cacert: cannot read the file (got \"/nonexistent/ca.pem\")");
  EXPECT_EQ(with_store({"--store-user", "gantry:secret"}),
            "--store-user: expected an etcd user name (its password goes in "
            "--store-password-file) (got \"gantry:secret\")");
}

// Secure by default: a store anyone on the way can read or write is named
// in a warning with the flags that fix it.
TEST(HubOptionsTest, AnExposedEtcdStoreIsNamedWithTheFlagsThatFixIt) {
  const std::string store = "etcd://10.0.0.1:2379";
  etcd::Access access;
  const std::string open = etcd_store_exposure(store, access);
  EXPECT_NE(open.find("plaintext http and unauthenticated"), std::string::npos) << open;
  for (const char* flag :
       {"--store-cacert", "--store-cert", "--store-key", "--store-user", "--store-password-file"})
    EXPECT_NE(open.find(flag), std::string::npos) << flag;
  access.auth = etcd::Credentials{"gantry", "secret"};
  const std::string plaintext = etcd_store_exposure(store, access);
  EXPECT_NE(plaintext.find("plaintext http: the etcd password"), std::string::npos) << plaintext;
  access.tls.ca_file = "ca.pem";
  EXPECT_EQ(etcd_store_exposure(store, access), "");
  access.auth = {};
  EXPECT_NE(etcd_store_exposure(store, access).find("https but unauthenticated"),
            std::string::npos);
  access.tls.cert_file = "hub.pem";
  access.tls.key_file = "hub-key.pem";
  EXPECT_EQ(etcd_store_exposure(store, access), "");
}

TEST(HubOptionsTest, PlannedRuntimesAreLimitsOrLearnedAndABadOneIsNamed) {
  EXPECT_EQ(parse_hub_command_line({}).options.settings.scheduling.planned_runtimes,
            hub::PlannedRuntimes::kLimits);
  EXPECT_EQ(parse_hub_command_line({"--planned-runtimes", "learned"})
                .options.settings.scheduling.planned_runtimes,
            hub::PlannedRuntimes::kLearned);
  EXPECT_EQ(refusal({"--planned-runtimes", "guessed"}),
            "--planned-runtimes: expected limits or learned (got \"guessed\")");
}

TEST(HubOptionsTest, ReclaimSparesAfterTakesZeroOrADurationAndNamesABadOne) {
  EXPECT_EQ(parse_hub_command_line({}).options.settings.scheduling.reclaim_spares_after_ms,
            3'600'000);
  EXPECT_EQ(parse_hub_command_line({"--reclaim-spares-after", "0"})
                .options.settings.scheduling.reclaim_spares_after_ms,
            0);
  EXPECT_EQ(refusal({"--reclaim-spares-after", "soon"}),
            "--reclaim-spares-after: expected 0 or a duration up to 8784h such as 30m, 1h or 48h "
            "(got \"soon\")");
}

TEST(HubOptionsTest, MinRuntimeIsZeroUnlessKarmadaModeOrGiven) {
  EXPECT_EQ(parse_hub_command_line({}).options.settings.scheduling.min_runtime_ms, 0);
  EXPECT_EQ(
      parse_hub_command_line({"--karmada", "k.yaml"}).options.settings.scheduling.min_runtime_ms,
      60'000)
      << "a release Karmada applied is not taken back within a minute";
  EXPECT_EQ(parse_hub_command_line({"--karmada", "k.yaml", "--min-runtime", "0"})
                .options.settings.scheduling.min_runtime_ms,
            0);
  EXPECT_EQ(
      parse_hub_command_line({"--min-runtime", "5m"}).options.settings.scheduling.min_runtime_ms,
      300'000);
  EXPECT_EQ(refusal({"--min-runtime", "soon"}),
            "--min-runtime: expected 0 or a duration up to 8784h such as 30m, 1h or 48h "
            "(got \"soon\")");
}

TEST(HubOptionsTest, UnknownPlacementNamesTheFlagTheValueAndTheChoices) {
  EXPECT_EQ(refusal({"--placement", "pack"}),
            "--placement: expected one of binpack, spread, gpu-available, topology (got \"pack\")");
  EXPECT_EQ(refusal({"--placement"}), "--placement: missing value");
  EXPECT_EQ(parse_hub_command_line({"--placement", "spread"})
                .options.settings.scheduling.placement.name(),
            "spread");
}

TEST(HubOptionsTest, DurationFlagsTakeAUnitAndRefuseTheRest) {
  const std::string expected = "expected a duration from 1ms to 24h such as 500ms, 30s or 2m";
  for (const std::string flag : {"--agent-lease", "--lost-grace", "--prepare-timeout"}) {
    EXPECT_EQ(refusal({flag, "30"}), flag + ": " + expected + " (got \"30\")");
    EXPECT_EQ(refusal({flag, "soon"}), flag + ": " + expected + " (got \"soon\")");
    EXPECT_EQ(refusal({flag, "0s"}), flag + ": " + expected + " (got \"0s\")");
    EXPECT_EQ(refusal({flag, "-5s"}), flag + ": " + expected + " (got \"-5s\")");
    EXPECT_EQ(refusal({flag, "25h"}), flag + ": " + expected + " (got \"25h\")");
    EXPECT_EQ(refusal({flag}), flag + ": missing value");
  }
}

TEST(HubOptionsTest, LostGraceShorterThanTheLeaseIsRefused) {
  EXPECT_EQ(refusal({"--agent-lease", "1m", "--lost-grace", "30s"}),
            "--lost-grace: must be at least --agent-lease (1m) (got \"30s\")");
  EXPECT_EQ(refusal({"--agent-lease", "3m"}),
            "--lost-grace: must be at least --agent-lease (3m) (got \"2m\")");
}

// Agents fence their runs after the lease (protocol/lease_timing.hpp): the
// lost grace must leave them the time to, or a requeue could meet a live copy.
TEST(HubOptionsTest, LostGraceThatLeavesNoTimeToFenceIsRefused) {
  EXPECT_EQ(refusal({"--agent-lease", "2s", "--lost-grace", "2000ms"}),
            "--lost-grace: must be at least --agent-lease plus its fence kill margin (3000 ms): "
            "agents cut off for longer stop their runs, and must be done before their jobs are "
            "placed again (got \"2s\")");
  const HubCommandLine enough =
      parse_hub_command_line({"--agent-lease", "2s", "--lost-grace", "3s"});
  EXPECT_EQ(enough.options.settings.agents.lost_grace, std::chrono::milliseconds{3000});
}

TEST(HubOptionsTest, BadValuesNameTheFlagAndTheValue) {
  const auto message = [](std::vector<std::string> args) {
    try {
      parse_hub_command_line(args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({"--heartbeat-ms", "fast"}),
            "--heartbeat-ms: expected a positive integer (got \"fast\")");
  EXPECT_EQ(message({"--liveness", "0"}), "--liveness: expected a positive integer (got \"0\")");
  EXPECT_EQ(message({"--recovery-grace-ms", "-1"}),
            "--recovery-grace-ms: expected a positive integer (got \"-1\")");
  EXPECT_EQ(message({"--agents", "7800"}), "--agents: expected tcp://HOST:PORT (got \"7800\")");
  EXPECT_EQ(message({"--state"}), "--state: missing value");
  EXPECT_EQ(message({"--colour", "red"}), "unknown flag \"--colour\"");
}

TEST(HubOptionsTest, KarmadaModeFlags) {
  EXPECT_TRUE(parse_hub_command_line({}).karmada.kubeconfig.empty()) << "off unless asked for";
  const HubCommandLine parsed =
      parse_hub_command_line({"--karmada", "/etc/karmada/config", "--karmada-context",
                              "karmada-apiserver", "--webhook-listen", "0.0.0.0:8443",
                              "--webhook-cert", "tls.crt", "--webhook-key", "tls.key"});
  EXPECT_EQ(parsed.karmada.kubeconfig, "/etc/karmada/config");
  EXPECT_EQ(parsed.karmada.context, "karmada-apiserver");
  EXPECT_EQ(parsed.karmada.webhook_listen, "0.0.0.0:8443");
  EXPECT_EQ(parsed.karmada.webhook_cert, "tls.crt");
  EXPECT_EQ(parsed.karmada.webhook_key, "tls.key");
  EXPECT_TRUE(parsed.karmada.webhook_client_ca.empty()) << "no client certificate asked by default";
  const HubCommandLine mutual_tls =
      parse_hub_command_line({"--webhook-listen", "0.0.0.0:8443", "--webhook-cert", "tls.crt",
                              "--webhook-key", "tls.key", "--webhook-client-ca", "karmada-ca.crt"});
  EXPECT_EQ(mutual_tls.karmada.webhook_client_ca, "karmada-ca.crt");
  EXPECT_EQ(parsed.karmada.apply_timeout.count(), 120'000) << "an apply may take two minutes";
  EXPECT_EQ(
      parse_hub_command_line({"--karmada-apply-timeout-ms", "3000"}).karmada.apply_timeout.count(),
      3000);
  EXPECT_EQ(parsed.karmada.termination_grace.count(), 300'000)
      << "a part's pods may take minutes to terminate";
  EXPECT_EQ(parse_hub_command_line({"--karmada-termination-grace-ms", "4000"})
                .karmada.termination_grace.count(),
            4000);
  EXPECT_EQ(refusal({"--webhook-listen", "8443"}),
            "--webhook-listen: expected HOST:PORT such as 0.0.0.0:8443 (got \"8443\")");
  EXPECT_EQ(refusal({"--webhook-listen", "0.0.0.0:8443"}),
            "--webhook-listen: needs --webhook-cert and --webhook-key (got \"0.0.0.0:8443\")");
  EXPECT_EQ(refusal({"--webhook-client-ca", "karmada-ca.crt"}),
            "--webhook-client-ca: only with --webhook-listen (got \"karmada-ca.crt\")");
  EXPECT_EQ(refusal({"--webhook-client-ca", ""}),
            "--webhook-client-ca: expected a value (got \"\")");
}

TEST(HubOptionsTest, HttpEndpointFlags) {
  EXPECT_TRUE(parse_hub_command_line({}).options.http.listen.empty()) << "not served by default";
  const HubCommandLine parsed = parse_hub_command_line(
      {"--http-listen", "0.0.0.0:9090", "--http-cert", "tls.crt", "--http-key", "tls.key",
       "--metrics-token-file", "/run/secrets/token"});
  EXPECT_EQ(parsed.options.http.listen, "0.0.0.0:9090");
  EXPECT_EQ(parsed.options.http.cert_pem_file, "tls.crt");
  EXPECT_EQ(parsed.options.http.key_pem_file, "tls.key");
  EXPECT_EQ(parsed.options.http.token_file, "/run/secrets/token");
  EXPECT_EQ(refusal({"--http-listen", "9090"}),
            "--http-listen: expected HOST:PORT such as 0.0.0.0:8443 (got \"9090\")");
  EXPECT_EQ(refusal({"--http-listen", "127.0.0.1:9090", "--http-cert", "tls.crt"}),
            "--http-cert: needs --http-key (got \"tls.crt\")");
  EXPECT_EQ(refusal({"--http-listen", "127.0.0.1:9090", "--http-key", "tls.key"}),
            "--http-key: needs --http-cert (got \"tls.key\")");
  EXPECT_EQ(refusal({"--http-cert", "tls.crt", "--http-key", "tls.key"}),
            "--http-cert: only with --http-listen (got \"tls.crt\")");
  EXPECT_EQ(refusal({"--metrics-token-file", "t"}),
            "--metrics-token-file: only with --http-listen (got \"t\")");
}

TEST(HubOptionsTest, SchedulingFlagsArriveResolvedInTheCoreOptions) {
  const HubCommandLine parsed =
      parse_hub_command_line({"--placement", "spread", "--topology-tier-label",
                              "1=nvidia.com/gpu.clique", "--topology-tier-label", "2=rack"});
  const hub::SchedulerOptions& scheduling = parsed.options.settings.scheduling;
  EXPECT_EQ(scheduling.placement.name(), "spread");
  EXPECT_EQ(scheduling.topology_tiers.label(1), "nvidia.com/gpu.clique");
  EXPECT_EQ(scheduling.topology_tiers.label(2), "rack");
  EXPECT_EQ(scheduling.topology_tiers.label(3), "gantry.io/topology-tier-3") << "left as it was";
  EXPECT_EQ(refusal({"--topology-tier-label", "9=rack"}).rfind("--topology-tier-label: ", 0), 0u);
}

TEST(HubOptionsTest, LogFormatIsTextUnlessJsonIsAsked) {
  EXPECT_EQ(parse_hub_command_line({}).log_format, support::LogFormat::kText);
  EXPECT_EQ(parse_hub_command_line({"--log-format", "json"}).log_format, support::LogFormat::kJson);
  EXPECT_EQ(refusal({"--log-format", "logfmt"}),
            "--log-format: expected text or json (got \"logfmt\")");
  const std::string usage = hub_usage();
  EXPECT_NE(usage.find("[--log-format text|json]"), std::string::npos) << usage;
  EXPECT_NE(usage.find("--log-format text|json    text (default) or json"), std::string::npos)
      << usage;
}

}  // namespace
}  // namespace gantry::actors
