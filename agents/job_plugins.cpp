#include "agents/job_plugins.hpp"

#include <openssl/core_names.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "support/base64.hpp"

namespace gantry::agents {

namespace {

// ------------------------------------------------------------- arguments
enum class FlagKind : std::uint8_t { kBool, kString, kPort };

struct FlagSpec {
  std::string_view name;
  FlagKind kind;
  std::string_view fallback;
};

struct PluginSpec {
  std::string_view name;
  std::vector<FlagSpec> flags;
};

// Each plugin's flags and defaults, as Volcano's plugins declare them.
const std::vector<PluginSpec>& plugin_specs() {
  static const std::vector<PluginSpec> specs = {
      {"env", {}},
      {"svc",
       {{"publish-not-ready-addresses", FlagKind::kBool, "false"},
        {"disable-network-policy", FlagKind::kBool, "false"}}},
      {"ssh",
       {{"no-root", FlagKind::kBool, "false"},
        {"ssh-key-file-path", FlagKind::kString, "/root/.ssh"},
        {"ssh-private-key", FlagKind::kString, ""},
        {"ssh-public-key", FlagKind::kString, ""},
        {"ssh-port", FlagKind::kPort, "22"}}},
      {"pytorch",
       {{"master", FlagKind::kString, "master"},
        {"worker", FlagKind::kString, "worker"},
        {"port", FlagKind::kPort, "23456"}}},
      {"tensorflow",
       {{"ps", FlagKind::kString, "ps"},
        {"worker", FlagKind::kString, "worker"},
        {"chief", FlagKind::kString, "chief"},
        {"evaluator", FlagKind::kString, "evaluator"},
        {"port", FlagKind::kPort, "2222"}}},
      {"mpi",
       {{"master", FlagKind::kString, "master"},
        {"worker", FlagKind::kString, "worker"},
        {"port", FlagKind::kPort, "22"}}},
      {"ray",
       {{"head", FlagKind::kString, "head"},
        {"headContainer", FlagKind::kString, "head"},
        {"worker", FlagKind::kString, "worker"},
        {"workerContainer", FlagKind::kString, "worker"},
        {"port", FlagKind::kPort, "6379"},
        {"dashboardPort", FlagKind::kPort, "8265"},
        {"clientPort", FlagKind::kPort, "10001"}}},
  };
  return specs;
}

const PluginSpec* find_plugin(std::string_view name) {
  for (const PluginSpec& spec : plugin_specs())
    if (spec.name == name) return &spec;
  return nullptr;
}

const FlagSpec* find_flag(const PluginSpec& plugin, std::string_view name) {
  for (const FlagSpec& flag : plugin.flags)
    if (flag.name == name) return &flag;
  return nullptr;
}

std::string flag_list(const PluginSpec& plugin) {
  if (plugin.flags.empty()) return "it takes no arguments";
  std::string out = "it takes";
  for (const FlagSpec& flag : plugin.flags) out += " --" + std::string(flag.name) + ",";
  out.pop_back();
  return out;
}

using FlagValues = std::map<std::string, std::string, std::less<>>;

// Go's strconv.ParseBool, as flag.BoolVar reads its value.
bool parse_bool(std::string_view text, std::string& out) {
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (text == yes) return out = "true", true;
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"})
    if (text == no) return out = "false", true;
  return false;
}

bool parse_port(std::string_view text, std::string& out) {
  if (text.empty() || text.size() > 5) return false;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const int port = std::stoi(std::string(text));
  if (port < 1 || port > 65535) return false;
  out = std::to_string(port);
  return true;
}

// One Go flag (args[at], maybe taking args[at + 1] as its value) into
// `values`; returns why not, or "". Advances `at` past what it used.
std::string parse_flag(const PluginSpec& plugin, const std::vector<std::string>& args,
                       std::size_t& at, FlagValues& values) {
  const std::string& arg = args[at++];
  const std::string where =
      "spec.plugins." + std::string(plugin.name) + ": argument \"" + arg + "\"";
  std::string_view body(arg);
  if (body.size() < 2 || body[0] != '-') return where + " is not a flag; " + flag_list(plugin);
  body.remove_prefix(body[1] == '-' ? 2 : 1);
  if (body.empty() || body[0] == '-' || body[0] == '=') return where + ": bad flag syntax";
  const std::size_t equals = body.find('=');
  const std::string_view name = body.substr(0, equals);
  const FlagSpec* flag = find_flag(plugin, name);
  if (flag == nullptr) {
    return where + " is not an argument of the " + std::string(plugin.name) + " plugin; " +
           flag_list(plugin);
  }
  std::string value;
  if (equals != std::string_view::npos) {
    value = std::string(body.substr(equals + 1));
  } else if (flag->kind == FlagKind::kBool) {
    value = "true";
  } else if (at < args.size()) {
    value = args[at++];
  } else {
    return where + " needs a value";
  }
  std::string& stored = values[std::string(name)];
  switch (flag->kind) {
    case FlagKind::kBool:
      if (!parse_bool(value, stored)) return where + ": \"" + value + "\" is not a boolean";
      break;
    case FlagKind::kPort:
      if (!parse_port(value, stored)) return where + ": \"" + value + "\" is not a port (1-65535)";
      break;
    case FlagKind::kString:
      stored = value;
      break;
  }
  return "";
}

// The plugin's arguments over its defaults; returns why not, or "".
std::string parse_args(const std::string& name, const std::vector<std::string>& args,
                       FlagValues& values) {
  const PluginSpec* plugin = find_plugin(name);
  if (plugin == nullptr) {
    return "spec.plugins." + name +
           ": unknown job plugin; one of env, mpi, pytorch, ray, ssh, svc, tensorflow";
  }
  for (const FlagSpec& flag : plugin->flags) values[std::string(flag.name)] = flag.fallback;
  std::size_t at = 0;
  while (at < args.size()) {
    if (args[at] == "--") {  // Go's terminator: whatever follows is not a flag
      if (at + 1 < args.size()) {
        return "spec.plugins." + name + ": argument \"" + args[at + 1] + "\" is not a flag; " +
               flag_list(*plugin);
      }
      break;
    }
    if (std::string why = parse_flag(*plugin, args, at, values); !why.empty()) return why;
  }
  return "";
}

// Arguments already checked at admission.
FlagValues args_of(const protocol::JobSpec& job, const std::string& plugin) {
  FlagValues values;
  const auto found = job.plugins.find(plugin);
  static const std::vector<std::string> none;
  const std::string why =
      parse_args(plugin, found == job.plugins.end() ? none : found->second, values);
  if (!why.empty()) throw std::invalid_argument(why);
  return values;
}

// ------------------------------------------------------------- helpers
std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// Volcano's key for a task: '-' -> '_' (env names are upper-cased too).
std::string task_key(const std::string& task) {
  std::string out = task;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

int task_named(const protocol::JobSpec& job, std::string_view name) {
  for (std::size_t t = 0; t < job.tasks.size(); ++t)
    if (job.tasks[t].name == name) return static_cast<int>(t);
  return -1;
}

void add(PluginOutput& out, std::string name, std::string value) {
  out.env.push_back(protocol::EnvVar{std::move(name), std::move(value)});
}

// ------------------------------------------------------------- plugins
void env_plugin(const PluginReplica& replica, PluginOutput& out) {
  add(out, "VK_TASK_INDEX", std::to_string(replica.index));
  add(out, "VC_TASK_INDEX", std::to_string(replica.index));
}

// The svc ConfigMap's keys become both the env and, mounted, the files.
void svc_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const std::string key = task_key(job.tasks[t].name);
    const std::string hosts_name = "VC_" + upper(key) + "_HOSTS";
    const std::string num_name = "VC_" + upper(key) + "_NUM";
    const std::string listed = join(hosts[t], ",");
    const std::string count = std::to_string(hosts[t].size());
    add(out, hosts_name, listed);
    add(out, num_name, count);
    out.files.push_back({PluginDir::kVolcano, key + ".host", join(hosts[t], "\n"), 0644});
    out.files.push_back({PluginDir::kVolcano, hosts_name, listed, 0644});
    out.files.push_back({PluginDir::kVolcano, num_name, count, 0644});
  }
}

void ssh_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, const SshKeyPair& keys,
                PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  const std::string port = args_of(job, "ssh").at("ssh-port");
  std::string config = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n";
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    for (std::size_t i = 0; i < hosts[t].size(); ++i) {
      config += "Host " + job.name + "-" + job.tasks[t].name + "-" + std::to_string(i) + "\n";
      config += "  HostName " + hosts[t][i] + "\n  Port " + port + "\n";
    }
  }
  out.files.push_back({PluginDir::kSsh, "id_rsa", keys.private_key, 0600});
  out.files.push_back({PluginDir::kSsh, "id_rsa.pub", keys.public_key, 0600});
  out.files.push_back({PluginDir::kSsh, "authorized_keys", keys.public_key, 0600});
  out.files.push_back({PluginDir::kSsh, "config", config, 0600});
}

void pytorch_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  const FlagValues args = args_of(job, "pytorch");
  const int master = task_named(job, args.at("master"));
  if (master < 0) return;  // as Volcano: no master task, no env
  std::int32_t world_size = 0;
  for (const protocol::TaskSpec& task : job.tasks)
    if (task.name == args.at("master") || task.name == args.at("worker"))
      world_size += task.replicas;
  const std::string& own = job.tasks[replica.task].name;
  add(out, "MASTER_ADDR", hosts[master].empty() ? "" : hosts[master].front());
  add(out, "MASTER_PORT",
      replica.master_port != 0 ? std::to_string(replica.master_port) : args.at("port"));
  add(out, "WORLD_SIZE", std::to_string(world_size));
  if (own == args.at("worker")) {
    add(out, "RANK", std::to_string(replica.index + 1));
  } else if (own == args.at("master")) {
    add(out, "RANK", "0");
  }
}

std::uint16_t distinct_port(std::uint16_t from, std::int64_t position) {
  constexpr std::int64_t kFirst = 1024;
  constexpr std::int64_t kSpan = 65536 - kFirst;
  return static_cast<std::uint16_t>(kFirst + (from - kFirst + position) % kSpan);
}

// TF_CONFIG as Go's json.Marshal writes Volcano's struct: cluster lists in
// the order ps, worker, chief, evaluator (absent when empty), then the task.
void tensorflow_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  if (job.tasks.size() == 1 && job.tasks.front().replicas == 1) return;  // stand-alone
  const FlagValues args = args_of(job, "tensorflow");
  const std::vector<std::string> roles = {"ps", "worker", "chief", "evaluator"};
  std::vector<nlohmann::ordered_json> lists(roles.size(), nlohmann::ordered_json::array());
  std::int64_t position = 0;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    nlohmann::ordered_json endpoints = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < hosts[t].size(); ++i, ++position) {
      const std::string port =
          replica.distinct_ports_from != 0
              ? std::to_string(distinct_port(replica.distinct_ports_from, position))
              : args.at("port");
      endpoints.push_back(hosts[t][i] + ":" + port);
    }
    for (std::size_t r = 0; r < roles.size(); ++r) {
      if (job.tasks[t].name != args.at(roles[r])) continue;
      lists[r] = std::move(endpoints);
      break;
    }
  }
  // ordered_json keeps Go's field order: cluster, then task.
  nlohmann::ordered_json config;
  config["cluster"] = nlohmann::ordered_json::object();
  for (std::size_t r = 0; r < roles.size(); ++r)
    if (!lists[r].empty()) config["cluster"][roles[r]] = lists[r];
  const std::string& own = job.tasks[replica.task].name;
  std::string type = own;
  for (const std::string& role : roles)
    if (own == args.at(role)) {
      type = role;
      break;
    }
  config["task"] = {{"type", type}, {"index", replica.index}};
  add(out, "TF_CONFIG",
      config.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

void mpi_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  const FlagValues args = args_of(job, "mpi");
  if (job.tasks[replica.task].name != args.at("master")) return;
  const int worker = task_named(job, args.at("worker"));
  if (worker < 0) return;
  add(out, "MPI_HOST", join(hosts[worker], ","));
}

// Volcano's error, word for word: its controller makes no pod of such a job.
std::string ray_head_missing(const protocol::JobSpec& job, const FlagValues& args) {
  if (task_named(job, args.at("head")) >= 0) return "";
  return "spec.plugins.ray: job " + job.name + " doesn't have head task " + args.at("head");
}

// The one change per container: a later plugin's command wins, ports add up.
ContainerChange& change_of(PluginOutput& out, const std::string& container) {
  for (ContainerChange& change : out.containers)
    if (change.container == container) return change;
  out.containers.push_back(ContainerChange{container, {}, {}});
  return out.containers.back();
}

// Replica 0 of the head task; Volcano names it even when the task has no replica.
std::string ray_head_host(const protocol::JobSpec& job, const ReplicaHosts& hosts,
                          const std::string& head) {
  const auto task = static_cast<std::size_t>(task_named(job, head));
  if (!hosts[task].empty()) return hosts[task].front();
  return job.name + "-" + head + "-0." + job.name;
}

std::uint16_t port_value(const FlagValues& args, const char* name) {
  return static_cast<std::uint16_t>(std::stoi(args.at(name)));
}

// The head's container runs a blocking head node on the plugin's ports and
// opens them; the workers' join replica 0 of the head task. Volcano checks
// the head role before the worker role, so a container named by both runs
// the worker's command.
void ray_plugin(const PluginReplica& replica, const ReplicaHosts& hosts, PluginOutput& out) {
  const protocol::JobSpec& job = *replica.job;
  const FlagValues args = args_of(job, "ray");
  if (std::string why = ray_head_missing(job, args); !why.empty()) throw std::invalid_argument(why);
  const std::string& own = job.tasks[replica.task].name;
  if (own == args.at("head")) {
    ContainerChange& head = change_of(out, args.at("headContainer"));
    head.command = {"sh", "-c",
                    "ray start --head --block --dashboard-host=0.0.0.0 --port=" + args.at("port") +
                        " --dashboard-port=" + args.at("dashboardPort") +
                        " --ray-client-server-port=" + args.at("clientPort")};
    head.ports.push_back({"gcs", port_value(args, "port")});
    head.ports.push_back({"dashboard", port_value(args, "dashboardPort")});
    head.ports.push_back({"client-server", port_value(args, "clientPort")});
  }
  if (own == args.at("worker")) {
    change_of(out, args.at("workerContainer")).command = {
        "sh", "-c",
        "ray start --block --address=" + ray_head_host(job, hosts, args.at("head")) + ":" +
            args.at("port")};
  }
}

bool active(const std::vector<std::string>& plugins, std::string_view name) {
  return std::find(plugins.begin(), plugins.end(), name) != plugins.end();
}

// ------------------------------------------------------------- ssh keys
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct BnFree {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
struct EncoderFree {
  void operator()(OSSL_ENCODER_CTX* ctx) const { OSSL_ENCODER_CTX_free(ctx); }
};

void put_uint32(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xff);
}

void put_ssh_string(std::string& out, const std::string& bytes) {
  put_uint32(out, static_cast<std::uint32_t>(bytes.size()));
  out += bytes;
}

// RFC 4251 mpint: big-endian, a leading zero byte when the top bit is set.
std::string mpint_bytes(const BIGNUM* value) {
  std::string bytes(static_cast<std::size_t>(BN_num_bytes(value)), '\0');
  BN_bn2bin(value, reinterpret_cast<unsigned char*>(bytes.data()));
  if (!bytes.empty() && (static_cast<unsigned char>(bytes[0]) & 0x80) != 0)
    bytes.insert(0, 1, '\0');
  return bytes;
}

BIGNUM* rsa_param(EVP_PKEY* key, const char* name) {
  BIGNUM* value = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &value) != 1)
    throw std::runtime_error("OpenSSL: no RSA " + std::string(name));
  return value;
}

std::string openssh_public_key(EVP_PKEY* key) {
  const std::unique_ptr<BIGNUM, BnFree> n(rsa_param(key, OSSL_PKEY_PARAM_RSA_N));
  const std::unique_ptr<BIGNUM, BnFree> e(rsa_param(key, OSSL_PKEY_PARAM_RSA_E));
  std::string blob;
  put_ssh_string(blob, "ssh-rsa");
  put_ssh_string(blob, mpint_bytes(e.get()));
  put_ssh_string(blob, mpint_bytes(n.get()));
  return "ssh-rsa " + support::encode_base64(blob) + "\n";
}

std::string pkcs1_pem(EVP_PKEY* key) {
  const std::unique_ptr<OSSL_ENCODER_CTX, EncoderFree> encoder(OSSL_ENCODER_CTX_new_for_pkey(
      key, OSSL_KEYMGMT_SELECT_KEYPAIR, "PEM", "type-specific", nullptr));
  unsigned char* data = nullptr;
  std::size_t length = 0;
  if (!encoder || OSSL_ENCODER_to_data(encoder.get(), &data, &length) != 1)
    throw std::runtime_error("OpenSSL: cannot encode the ssh private key");
  std::string pem(reinterpret_cast<const char*>(data), length);
  OPENSSL_free(data);
  return pem;
}

}  // namespace

std::string check_plugins(const protocol::JobSpec& job) {
  for (const auto& [name, args] : job.plugins) {
    FlagValues values;
    if (std::string why = parse_args(name, args, values); !why.empty()) return why;
    if (name == "ray")
      if (std::string why = ray_head_missing(job, values); !why.empty()) return why;
  }
  return "";
}

std::vector<std::string> active_plugins(const protocol::JobSpec& job) {
  std::vector<std::string> plugins;
  const auto has = [&](const char* name) { return job.plugins.count(name) != 0; };
  const bool framework = has("pytorch") || has("tensorflow") || has("mpi") || has("ray");
  // A fixed order, so that every replica's env reads the same.
  for (const char* name : {"env", "svc", "ssh", "pytorch", "tensorflow", "mpi", "ray"}) {
    const std::string_view plugin(name);
    const bool forced = (plugin == "svc" && framework) || (plugin == "ssh" && has("mpi"));
    if (has(name) || forced) plugins.emplace_back(name);
  }
  return plugins;
}

bool needs_ssh_keys(const protocol::JobSpec& job) {
  return active(active_plugins(job), "ssh");
}

std::string ssh_key_dir(const protocol::JobSpec& job) {
  return args_of(job, "ssh").at("ssh-key-file-path");
}

PluginOutput plugin_output(const PluginReplica& replica, const SshKeyPair* keys) {
  PluginOutput out;
  const protocol::JobSpec& job = *replica.job;
  const std::vector<std::string> plugins = active_plugins(job);
  if (plugins.empty()) return out;
  const ReplicaHosts own_hosts = replica.hosts == nullptr ? volcano_hosts(job) : ReplicaHosts{};
  const ReplicaHosts& hosts = replica.hosts == nullptr ? own_hosts : *replica.hosts;
  if (hosts.size() != job.tasks.size())
    throw std::invalid_argument("plugin hosts: one list per task of job " + job.name);
  if (active(plugins, "env")) env_plugin(replica, out);
  if (active(plugins, "svc")) svc_plugin(replica, hosts, out);
  if (active(plugins, "ssh") && keys != nullptr) ssh_plugin(replica, hosts, *keys, out);
  if (active(plugins, "pytorch")) pytorch_plugin(replica, hosts, out);
  if (active(plugins, "tensorflow")) tensorflow_plugin(replica, hosts, out);
  if (active(plugins, "mpi")) mpi_plugin(replica, hosts, out);
  if (active(plugins, "ray")) ray_plugin(replica, hosts, out);
  return out;
}

bool plugin_sets_command(const protocol::JobSpec& job, std::uint32_t task,
                         const std::string& container) {
  if (!job.plugins.contains("ray")) return false;
  const FlagValues args = args_of(job, "ray");
  const std::string& name = job.tasks.at(task).name;
  return (name == args.at("head") && container == args.at("headContainer")) ||
         (name == args.at("worker") && container == args.at("workerContainer"));
}

const ContainerChange* change_for(const std::vector<ContainerChange>& changes,
                                  const std::string& container) {
  for (const ContainerChange& change : changes)
    if (change.container == container) return &change;
  return nullptr;
}

ReplicaHosts volcano_hosts(const protocol::JobSpec& job) {
  ReplicaHosts hosts(job.tasks.size());
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    for (std::int32_t i = 0; i < job.tasks[t].replicas; ++i)
      hosts[t].push_back(job.name + "-" + job.tasks[t].name + "-" + std::to_string(i) + "." +
                         job.name);
  }
  return hosts;
}

ReplicaHosts part_hosts(const protocol::JobSpec& job, const std::vector<RunReplica>& replicas,
                        const std::string& here) {
  ReplicaHosts hosts = volcano_hosts(job);
  for (const RunReplica& replica : replicas) {
    if (replica.task >= hosts.size()) continue;
    std::vector<std::string>& task_hosts = hosts[replica.task];
    const auto index = static_cast<std::size_t>(replica.index);
    if (replica.index >= 0 && index < task_hosts.size()) task_hosts[index] = here;
  }
  return hosts;
}

SshKeyPair ssh_keys_for(const protocol::JobSpec& job) {
  const FlagValues args = args_of(job, "ssh");
  if (!args.at("ssh-private-key").empty() && !args.at("ssh-public-key").empty())
    return SshKeyPair{args.at("ssh-private-key"), args.at("ssh-public-key")};
  constexpr unsigned kBits = 2048;
  const std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_RSA_gen(kBits));
  if (!key) throw std::runtime_error("OpenSSL: cannot generate an RSA key for the ssh plugin");
  return SshKeyPair{pkcs1_pem(key.get()), openssh_public_key(key.get())};
}

}  // namespace gantry::agents
