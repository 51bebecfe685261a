#include "actors/hub_options.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "actors/etcd_job_store.hpp"
#include "config/command_line.hpp"
#include "config/http_endpoint_flags.hpp"
#include "config/log_format_flag.hpp"
#include "hub/duration.hpp"
#include "hub/placement_policy.hpp"
#include "hub/topology.hpp"
#include "protocol/lease_timing.hpp"

namespace gantry::actors {

namespace {

namespace cl = command_line;

// Checked when parsed, so a wrong --store is a usage error, not a failed start.
std::string etcd_store_url(const std::string& text) {
  try {
    parse_etcd_store_address(text);
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument(error.what());
  }
  return text;
}

// A file the hub will read: refused now when it cannot be, not at start.
std::string readable_file(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a file");
  if (!std::ifstream(text)) throw std::invalid_argument("cannot read the file");
  return text;
}

// etcdctl's --user takes NAME:PASSWORD; here the password is only ever read
// from a file, never from the command line, where ps shows it.
std::string etcd_user(const std::string& text) {
  if (text.empty() || text.find(':') != std::string::npos)
    throw std::invalid_argument(
        "expected an etcd user name (its password goes in --store-password-file)");
  return text;
}

// The file's content less its trailing newline(s).
std::string store_password(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad())
    throw std::invalid_argument("--store-password-file: cannot read the file (got \"" + file +
                                "\")");
  std::string password = text.str();
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r'))
    password.pop_back();
  if (password.empty())
    throw std::invalid_argument("--store-password-file: the file is empty (got \"" + file + "\")");
  try {
    (void)nlohmann::json(password).dump();  // sent to etcd as a JSON string
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument("--store-password-file: the password is not UTF-8 text (got \"" +
                                file + "\")");
  }
  return password;
}

const cl::Wording kWording{"{}: missing value", "unknown flag \"{}\"",
                           "unexpected argument \"{}\""};

constexpr std::int64_t kMaxMs = 86'400'000;  // a day

std::string endpoint(const std::string& text) {
  if (text.rfind("tcp://", 0) != 0 && text.rfind("ipc://", 0) != 0)
    throw std::invalid_argument("expected tcp://HOST:PORT");
  return text;
}

std::string directory(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a directory");
  return text;
}

hub::PlacementPolicy placement(const std::string& text) {
  const hub::PlacementPolicy* policy = hub::find_placement_policy(text);
  if (policy == nullptr)
    throw std::invalid_argument("expected one of " + hub::placement_policy_names());
  return *policy;
}

cl::Reader<std::chrono::milliseconds> milliseconds() {
  const auto read = cl::positive<std::int64_t>("expected a positive integer", kMaxMs);
  return [read](const std::string& text) { return std::chrono::milliseconds(read(text)); };
}

// hub::parse_duration_ms, or 0 for text it cannot read: the callers refuse
// 0 with their own wording of the range.
std::int64_t duration_ms_or_zero(const std::string& text) {
  try {
    return hub::parse_duration_ms(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
}

// hub/duration.hpp's syntax, above zero, at most a day.
std::chrono::milliseconds duration(const std::string& text) {
  const std::int64_t ms = duration_ms_or_zero(text);
  if (ms <= 0 || ms > kMaxMs)
    throw std::invalid_argument("expected a duration from 1ms to 24h such as 500ms, 30s or 2m");
  return std::chrono::milliseconds(ms);
}

// A release Karmada has applied is not taken back sooner: on the members
// each flip creates and deletes a workload and its pods.
constexpr std::chrono::milliseconds kKarmadaMinRuntime{60'000};

// duration(), in the core's milliseconds.
hub::TimeMs duration_ms(const std::string& text) {
  return duration(text).count();
}

// A run's age: 0 (off), or hub/duration.hpp's syntax up to a leap year.
std::chrono::milliseconds run_age(const std::string& text) {
  constexpr std::int64_t kYearMs = std::int64_t{8784} * 3600 * 1000;
  if (text == "0") return std::chrono::milliseconds(0);
  const std::int64_t ms = duration_ms_or_zero(text);
  if (ms <= 0 || ms > kYearMs)
    throw std::invalid_argument("expected 0 or a duration up to 8784h such as 30m, 1h or 48h");
  return std::chrono::milliseconds(ms);
}

void define_karmada(CLI::App& app, KarmadaOptions& karmada) {
  cl::add_read<std::string>(app, "--karmada", karmada.kubeconfig, cl::not_empty,
                            "schedule a Karmada control plane's ResourceBindings: the\n"
                            "kubeconfig of its API server, or in-cluster (docs/karmada.md)")
      ->type_name("KUBECONFIG");
  cl::add_read<std::string>(app, "--karmada-context", karmada.context, cl::not_empty,
                            "the kubeconfig context to use (default: its current-context)")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--webhook-listen", karmada.webhook_listen, cl::host_port,
                            "serve the admission webhook that suspends new\n"
                            "ResourceBindings for Gantry (HTTPS)")
      ->type_name("HOST:PORT");
  cl::add_read<std::string>(app, "--webhook-cert", karmada.webhook_cert, cl::not_empty,
                            "the webhook's TLS certificate (PEM)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--webhook-key", karmada.webhook_key, cl::not_empty,
                            "the webhook's TLS private key (PEM)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--webhook-client-ca", karmada.webhook_client_ca, cl::not_empty,
                            "require the Karmada API server's client certificate,\n"
                            "signed by this CA (PEM); default: none asked")
      ->type_name("FILE");
  cl::add_read(app, "--karmada-apply-timeout-ms", karmada.apply_timeout, milliseconds(),
               "a released binding's member workload not applied by Karmada\n"
               "within this time is refused on that cluster and the job\n"
               "placed again (default 120000)")
      ->type_name("N");
  cl::add_read(app, "--karmada-termination-grace-ms", karmada.termination_grace, milliseconds(),
               "a part taken off a member cluster stays counted there until\n"
               "Karmada shows its workload gone, or this long at most\n"
               "(default 300000)")
      ->type_name("N");
}

hub::PlannedRuntimes planned_runtimes(const std::string& text) {
  const auto runtimes = hub::parse_planned_runtimes(text);
  if (!runtimes) throw std::invalid_argument("expected limits or learned");
  return *runtimes;
}

// Repeatable: each TIER=LABEL names the node label of one topology tier.
void define_topology_tiers(CLI::App& app, hub::TopologyTiers& tiers) {
  app.add_option_function<std::vector<std::string>>(
         "--topology-tier-label",
         [&tiers](const std::vector<std::string>& texts) {
           for (const std::string& text : texts) {
             try {
               tiers.apply(text);
             } catch (const std::invalid_argument& refusal) {
               throw CLI::ValidationError("--topology-tier-label",
                                          std::string(refusal.what()) + " (got \"" + text + "\")");
             }
           }
         },
         "the node label of a network-topology tier, e.g.\n"
         "1=nvidia.com/gpu.clique (default gantry.io/topology-tier-N;\n"
         "repeatable; docs/topology.md)")
      ->type_name("TIER=LABEL")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// docs/security.md: keys, the access list and the audit log.
void define_security(CLI::App& app, HubOptions& options) {
  cl::add_read<std::filesystem::path>(
      app, "--key", options.key_file, cl::path,
      "the hub's CurveZMQ keypair (default STATE/hub.key; generated,\n"
      "with hub.pub beside it, when the file does not exist)")
      ->type_name("FILE");
  cl::add_read<std::filesystem::path>(
      app, "--access", options.access_file, cl::path,
      "who may connect: agents' keys bound to their clusters, gantryctl\n"
      "keys with a role (default STATE/access.yaml; reread on SIGHUP)")
      ->type_name("FILE");
  cl::add_read<std::filesystem::path>(app, "--audit-log", options.audit_log, cl::path,
                                      "one JSON line per admin action (default STATE/audit.log)")
      ->type_name("FILE");
  cl::add_read<std::int64_t>(
      app, "--max-frame-bytes", options.max_frame_bytes,
      cl::number_from<std::int64_t>(4096, std::int64_t{1} << 30,
                                    "expected a whole number of bytes from 4096 to 1073741824"),
      "a bigger frame is refused with an error naming this limit\n"
      "(twice as big: its connection is dropped unread) (default 16777216)")
      ->type_name("N");
  cl::add_read<int>(app, "--max-connections", options.max_connections,
                    cl::number_from<int>(1, 1'000'000, "expected a whole number from 1 to 1000000"),
                    "connections per socket; the newest over it is closed\n"
                    "(default 1024, lowered to fit the file-descriptor limit)")
      ->type_name("N");
  cl::add_read<std::chrono::milliseconds>(
      app, "--idle-timeout", options.idle_timeout, duration,
      "a connection that sends nothing this long is closed; agents beat\n"
      "every --heartbeat-ms, so it must be longer (default 10m)")
      ->type_name("DURATION");
  app.add_flag("--insecure", options.insecure,
               "plaintext, unauthenticated sockets: anyone who reaches them\n"
               "may run jobs and administer the hub (tests on loopback only)");
}

// etcdctl's --cacert, --cert, --key and --user for the etcd store
// (docs/state.md, "On etcd"); every etcd client of the hub uses them.
void define_store_access(CLI::App& app, HubCommandLine& parsed) {
  etcd::Access& access = parsed.options.store_access;
  cl::add_read<std::string>(app, "--store-cacert", access.tls.ca_file, readable_file,
                            "reach the etcd store over https, its certificate verified\n"
                            "with this CA (PEM)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--store-cert", access.tls.cert_file, readable_file,
                            "the hub's client certificate (PEM) for etcd's\n"
                            "--client-cert-auth (https; without --store-cacert etcd's\n"
                            "certificate is verified with the system's CAs)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--store-key", access.tls.key_file, readable_file,
                            "the --store-cert certificate's private key (PEM)")
      ->type_name("FILE");
  cl::add_read<std::string>(app, "--store-user", access.auth.user, etcd_user,
                            "authenticate to etcd (its auth enabled) as this user")
      ->type_name("NAME");
  cl::add_read<std::string>(app, "--store-password-file", parsed.store_password_file, readable_file,
                            "the --store-user's password: the file's content less its\n"
                            "trailing newline")
      ->type_name("FILE");
}

// Throws std::invalid_argument naming the flag: half a client certificate or
// of the credentials, or a flag that means nothing without an etcd --store.
void check_store_access(HubCommandLine& parsed) {
  etcd::Access& access = parsed.options.store_access;
  const std::pair<const char*, const std::string*> flags[] = {
      {"--store-cacert", &access.tls.ca_file},
      {"--store-cert", &access.tls.cert_file},
      {"--store-key", &access.tls.key_file},
      {"--store-user", &access.auth.user},
      {"--store-password-file", &parsed.store_password_file}};
  for (const auto& [flag, value] : flags) {
    if (!value->empty() && parsed.options.store.empty())
      throw std::invalid_argument(std::string(flag) + ": only with --store etcd://... (got \"" +
                                  *value + "\")");
  }
  const auto both = [](const char* flag, const std::string& value, const char* other,
                       const std::string& other_value) {
    if (!value.empty() && other_value.empty())
      throw std::invalid_argument(std::string(flag) + ": needs " + other + " (got \"" + value +
                                  "\")");
  };
  both("--store-cert", access.tls.cert_file, "--store-key", access.tls.key_file);
  both("--store-key", access.tls.key_file, "--store-cert", access.tls.cert_file);
  both("--store-user", access.auth.user, "--store-password-file", parsed.store_password_file);
  both("--store-password-file", parsed.store_password_file, "--store-user", access.auth.user);
  if (!parsed.store_password_file.empty())
    access.auth.password = store_password(parsed.store_password_file);
}

void define(CLI::App& app, HubCommandLine& parsed) {
  cl::configure(
      app,
      "usage: gantry-hub [--agents tcp://HOST:PORT] [--admin tcp://HOST:PORT] [--state DIR]\n"
      "                  [--store etcd://HOST:PORT[,HOST:PORT...][/PREFIX]] [--check]\n"
      "                  [--store-cacert FILE] [--store-cert FILE --store-key FILE]\n"
      "                  [--store-user NAME --store-password-file FILE]\n"
      "                  [--heartbeat-ms N] [--liveness N] [--recovery-grace-ms N]\n"
      "                  [--placement POLICY] [--agent-lease DURATION] [--lost-grace DURATION]\n"
      "                  [--prepare-timeout DURATION] [--backfill-reservations N]\n"
      "                  [--planned-runtimes limits|learned]\n"
      "                  [--reclaim-spares-after DURATION] [--min-runtime DURATION]\n"
      "                  [--restart-backoff DURATION] [--keep-finished DURATION]\n"
      "                  [--key FILE] [--access FILE] [--audit-log FILE] [--insecure]\n"
      "                  [--max-frame-bytes N] [--max-connections N] [--idle-timeout DURATION]\n"
      "                  [--http-listen HOST:PORT [--http-cert FILE --http-key FILE]\n"
      "                   [--metrics-token-file FILE]]\n"
      "                  [--log-level LEVEL] [--log-format text|json]\n"
      "                  [--topology-tier-label TIER=LABEL ...]\n"
      "                  [--karmada KUBECONFIG|in-cluster] [--karmada-context NAME]\n"
      "                  [--webhook-listen HOST:PORT --webhook-cert FILE --webhook-key FILE\n"
      "                   [--webhook-client-ca FILE]]\n");
  HubOptions& options = parsed.options;
  HubSettings& settings = options.settings;
  AgentSessionSettings& agents = settings.agents;
  hub::SchedulerOptions& scheduling = settings.scheduling;
  cl::add_read<std::string>(app, "--agents", options.agents_endpoint, endpoint,
                            "where agents connect (default tcp://127.0.0.1:7800)")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::string>(app, "--admin", options.admin_endpoint, endpoint,
                            "where gantryctl connects (default tcp://127.0.0.1:7801)")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::filesystem::path>(app, "--state", options.state_dir, directory,
                                      "directory for gantry.db (default ./var, created if missing)")
      ->type_name("DIR");
  cl::add_read<std::string>(app, "--store", options.store, etcd_store_url,
                            "where jobs are kept: etcd://HOST:PORT[,HOST:PORT...][/PREFIX]\n"
                            "for several hubs on one etcd (default: gantry.db in --state)")
      ->type_name("URL");
  define_store_access(app, parsed);
  app.add_option("--advertise-host", options.advertise_host,
                 "with --store etcd://: the host the other hubs tell clients to\n"
                 "try for this one, put in place of a wildcard --admin, --agents\n"
                 "or --http-listen address (default: the host name)")
      ->type_name("HOST");
  app.add_flag("--check", parsed.check,
               "check the state directory (lock holder, damage, SQLite's\n"
               "integrity check, counts), or the --store etcd://... (holder,\n"
               "every record read, counts), and exit: 0 when it is sound");
  cl::add_read(app, "--heartbeat-ms", agents.heartbeat_interval, milliseconds(),
               "heartbeat interval sent to agents (default 1000)")
      ->type_name("N");
  cl::add_read<std::int32_t>(app, "--liveness", agents.liveness,
                             cl::positive<std::int32_t>("expected a positive integer", 86'400'000),
                             "heartbeats of the default --recovery-grace-ms (default 3); agents\n"
                             "are told their fence timeout in heartbeats, from --lost-grace")
      ->type_name("N");
  cl::add_read<std::optional<std::chrono::milliseconds>>(
      app, "--recovery-grace-ms", settings.recovery_grace, milliseconds(),
      "after a restart with unfinished jobs, how long agents have\n"
      "to list what they still run before those jobs are placed\n"
      "again (default: heartbeat x liveness)")
      ->type_name("N");
  cl::add_read<hub::PlacementPolicy>(app, "--placement", scheduling.placement, placement,
                                     "default placement policy: " + hub::placement_policy_names() +
                                         "\n(default binpack; a queue may name its own)")
      ->type_name("POLICY");
  cl::add_read<std::chrono::milliseconds>(app, "--agent-lease", agents.agent_lease, duration,
                                          "an agent silent this long makes its cluster not ready;\n"
                                          "its jobs keep running (default 30s)")
      ->type_name("DURATION");
  cl::add_read<std::chrono::milliseconds>(
      app, "--lost-grace", agents.lost_grace, duration,
      "an agent silent this long (from its last frame) is lost:\n"
      "its jobs are placed elsewhere (default 2m)")
      ->type_name("DURATION");
  cl::add_read<std::chrono::milliseconds>(
      app, "--prepare-timeout", settings.prepare_timeout, duration,
      "a prepare or commit an agent leaves unanswered this long\n"
      "counts as a reject (default 10s)")
      ->type_name("DURATION");
  cl::add_read<std::uint32_t>(
      app, "--backfill-reservations", scheduling.reservations,
      cl::number_from<std::uint32_t>(0, 1000, "expected a whole number from 0 to 1000"),
      "blocked jobs of the queue order that get a planned start from\n"
      "running jobs' time limits, which later jobs may not delay\n"
      "(default 1, EASY backfill; 0: plain first fit)")
      ->type_name("N");
  cl::add_read<hub::PlannedRuntimes>(
      app, "--planned-runtimes", scheduling.planned_runtimes, planned_runtimes,
      "what backfill plans take running jobs' ends to be: their time\n"
      "limits (default; a reserved job starts no later than planned), or\n"
      "what each queue's ended runs took of their limits (docs/backfill.md)")
      ->type_name("limits|learned");
  cl::add_read<hub::TimeMs>(
      app, "--reclaim-spares-after", scheduling.reclaim_spares_after_ms,
      [](const std::string& text) { return run_age(text).count(); },
      "reclaim never evicts a gang that has run this long: the work\n"
      "it would throw away outweighs the share it gives back (default 1h;\n"
      "0: any run may be reclaimed)")
      ->type_name("DURATION");
  cl::add_read<std::optional<std::chrono::milliseconds>>(
      app, "--min-runtime", parsed.min_runtime,
      [](const std::string& text) { return std::optional(run_age(text)); },
      "preemption and reclaim never evict a gang committed less than this\n"
      "ago: each eviction of a fresh start throws its pods away (default\n"
      "60s with --karmada, where it re-suspends a release Karmada has just\n"
      "applied; else 0: any run may be evicted)")
      ->type_name("DURATION");
  cl::add_read<hub::TimeMs>(app, "--restart-backoff", scheduling.restart_backoff_ms, duration_ms,
                            "a job a lifecycle policy restarts (RestartJob, ...) is placed again\n"
                            "after this wait, doubled per retry up to 5 min (default 10s)")
      ->type_name("DURATION");
  cl::add_read<std::chrono::milliseconds>(
      app, "--keep-finished", settings.keep_finished, run_age,
      "an ended job stays listed (get jobs, describe job), across\n"
      "restarts, this long after its end unless deleted or its ttl\n"
      "ends first, like Slurm's MinJobAge (default 168h; 0: not kept)")
      ->type_name("DURATION");
  define_topology_tiers(app, scheduling.topology_tiers);
  define_security(app, options);
  cl::add_http_endpoint_flags(app, options.http, "STATE/metrics.token");
  define_karmada(app, parsed.karmada);
  cl::add_log_level(app, parsed.log_level);
  cl::add_log_format(app, parsed.log_format);
}

}  // namespace

HubCommandLine parse_hub_command_line(const std::vector<std::string>& args) {
  HubCommandLine parsed = cl::parse_options("gantry-hub", define, args, kWording);
  const HubOptions& options = parsed.options;
  const AgentSessionSettings& agents = options.settings.agents;
  // A cluster is not ready before it is lost, never the other way round.
  if (agents.lost_grace < agents.agent_lease)
    throw std::invalid_argument("--lost-grace: must be at least --agent-lease (" +
                                hub::format_duration(agents.agent_lease.count()) + ") (got \"" +
                                hub::format_duration(agents.lost_grace.count()) + "\")");
  // Agents fence their runs after the lease: that must be over before the
  // hub places their jobs again (protocol/lease_timing.hpp).
  if (const std::string why = protocol::why_fence_unsafe(agents.agent_lease, agents.lost_grace);
      !why.empty())
    throw std::invalid_argument("--lost-grace: " + why + " (got \"" +
                                hub::format_duration(agents.lost_grace.count()) + "\")");
  // Agents are told their fence timeout in heartbeats: at least one.
  if (const auto fence = protocol::fence_timeout(agents.lost_grace);
      agents.heartbeat_interval > fence)
    throw std::invalid_argument("--heartbeat-ms: must be at most the agents' fence timeout (" +
                                hub::format_duration(fence.count()) +
                                ", from --lost-grace) (got \"" +
                                hub::format_duration(agents.heartbeat_interval.count()) + "\")");
  // An agent says something every heartbeat: a shorter idle timeout would
  // close healthy agents' connections.
  if (options.idle_timeout <= 2 * agents.heartbeat_interval)
    throw std::invalid_argument("--idle-timeout: must be longer than twice --heartbeat-ms (" +
                                hub::format_duration(agents.heartbeat_interval.count()) +
                                ") (got \"" + hub::format_duration(options.idle_timeout.count()) +
                                "\")");
  const KarmadaOptions& karmada = parsed.karmada;
  parsed.options.settings.scheduling.min_runtime_ms =
      parsed.min_runtime
          .value_or(karmada.kubeconfig.empty() ? std::chrono::milliseconds(0) : kKarmadaMinRuntime)
          .count();
  cl::check_http_endpoint_flags(options.http);
  check_store_access(parsed);
  if (!karmada.webhook_listen.empty() &&
      (karmada.webhook_cert.empty() || karmada.webhook_key.empty()))
    throw std::invalid_argument("--webhook-listen: needs --webhook-cert and --webhook-key (got \"" +
                                karmada.webhook_listen + "\")");
  // Without a webhook the CA would be silently ignored, and the operator
  // would believe the webhook checks client certificates.
  if (!karmada.webhook_client_ca.empty() && karmada.webhook_listen.empty())
    throw std::invalid_argument("--webhook-client-ca: only with --webhook-listen (got \"" +
                                karmada.webhook_client_ca + "\")");
  return parsed;
}

std::string hub_usage() {
  return cl::usage("gantry-hub", define);
}

}  // namespace gantry::actors
