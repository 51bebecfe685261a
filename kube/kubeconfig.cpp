// load_kubeconfig: the subset of client-go's kubeconfig that names a server
// and its credentials: static ones, or an exec plugin (no auth-provider).
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <vector>

#include "config/yaml_guard.hpp"
#include "kube/cluster_access.hpp"
#include "kube/read_file.hpp"
#include "support/base64.hpp"

namespace gantry::kube {
namespace {

class KubeconfigReader {
 public:
  explicit KubeconfigReader(const std::filesystem::path& file)
      : file_(file), folder_(file.parent_path()) {
    const auto text = read_whole_file(file);
    if (!text) throw std::runtime_error("kubeconfig " + file_.string() + ": cannot read the file");
    try {
      root_ = config::load_yaml(*text);
    } catch (const std::exception& error) {  // hub::FieldError: a limit or a syntax error
      throw std::runtime_error("kubeconfig " + file_.string() + ": " + error.what());
    }
    if (!root_.IsMap()) fail("", "not a kubeconfig (expected a mapping)");
  }

  ClusterAccess read(const std::string& requested_context) const {
    std::string context_name = requested_context;
    if (context_name.empty()) {
      context_name = scalar(root_["current-context"], "current-context");
      if (context_name.empty()) fail("current-context", "missing (and no context was asked for)");
    }
    const std::string context_field = "contexts[name=" + context_name + "].context";
    const YAML::Node context = named("contexts", context_name, "context");
    const std::string cluster_name = scalar(context["cluster"], context_field + ".cluster");
    if (cluster_name.empty()) fail(context_field + ".cluster", "missing");
    const std::string user_name = scalar(context["user"], context_field + ".user");

    ClusterAccess access;
    read_cluster(cluster_name, access);
    if (!user_name.empty()) read_user(user_name, access);
    return access;
  }

 private:
  void read_cluster(const std::string& name, ClusterAccess& access) const {
    const std::string field = "clusters[name=" + name + "].cluster";
    const YAML::Node cluster = named("clusters", name, "cluster");
    access.server = scalar(cluster["server"], field + ".server");
    if (access.server.empty()) fail(field + ".server", "missing");
    access.ca_pem = data_or_file(cluster, field, "certificate-authority");
    access.insecure_skip_tls_verify =
        boolean(cluster["insecure-skip-tls-verify"], field + ".insecure-skip-tls-verify");
  }

  void read_user(const std::string& name, ClusterAccess& access) const {
    const std::string field = "users[name=" + name + "].user";
    const YAML::Node user = named("users", name, "user");
    access.client_cert_pem = data_or_file(user, field, "client-certificate");
    access.client_key_pem = data_or_file(user, field, "client-key");
    if (access.client_cert_pem.empty() != access.client_key_pem.empty()) {
      fail(field + (access.client_key_pem.empty() ? ".client-key" : ".client-certificate"),
           "missing (a client certificate needs both the certificate and its key)");
    }
    access.bearer_token = scalar(user["token"], field + ".token");
    const std::string token_file = scalar(user["tokenFile"], field + ".tokenFile");
    if (access.bearer_token.empty() && !token_file.empty()) {
      const std::filesystem::path path = resolve(token_file);
      const auto token = read_whole_file(path);
      if (!token) fail(field + ".tokenFile", "cannot read " + path.string());
      access.bearer_token = trim_token(*token);
      access.bearer_token_file = path.string();
    }
    const bool has_credentials = !access.client_cert_pem.empty() || !access.bearer_token.empty();
    if (!has_credentials && user["exec"])
      access.exec = read_exec(user["exec"], field + ".exec", access);
    if (!has_credentials && !access.exec && user["auth-provider"]) {
      fail(field + ".auth-provider",
           "not supported (client-go replaced auth providers with exec plugins: give an exec, "
           "token, tokenFile or client certificate)");
    }
  }

  // users[].user.exec, as client-go's ExecConfig.
  ExecPlugin read_exec(const YAML::Node& exec, const std::string& field,
                       const ClusterAccess& access) const {
    if (!exec.IsMap()) fail(field, "not a mapping");
    ExecPlugin plugin;
    plugin.command = scalar(exec["command"], field + ".command");
    if (plugin.command.empty()) fail(field + ".command", "missing");
    // As client-go: a command with a path separator is the kubeconfig's folder's.
    if (plugin.command.find('/') != std::string::npos)
      plugin.command = resolve(plugin.command).string();
    plugin.api_version = scalar(exec["apiVersion"], field + ".apiVersion");
    if (plugin.api_version != "client.authentication.k8s.io/v1" &&
        plugin.api_version != "client.authentication.k8s.io/v1beta1") {
      fail(field + ".apiVersion", "must be client.authentication.k8s.io/v1 or /v1beta1 (got \"" +
                                      plugin.api_version + "\")");
    }
    for (const YAML::Node& arg : list(exec["args"], field + ".args"))
      plugin.args.push_back(scalar(arg, field + ".args[]"));
    for (const YAML::Node& variable : list(exec["env"], field + ".env")) {
      const std::string name = scalar(variable["name"], field + ".env[].name");
      if (name.empty()) fail(field + ".env[].name", "missing");
      plugin.env.emplace_back(name,
                              scalar(variable["value"], field + ".env[name=" + name + "].value"));
    }
    plugin.install_hint = scalar(exec["installHint"], field + ".installHint");
    const std::string mode = scalar(exec["interactiveMode"], field + ".interactiveMode");
    if (mode == "Always")
      fail(field + ".interactiveMode",
           "Always: the plugin needs a terminal, and Gantry runs without one (IfAvailable or "
           "Never)");
    if (!mode.empty() && mode != "Never" && mode != "IfAvailable")
      fail(field + ".interactiveMode",
           "must be Never, IfAvailable or Always (got \"" + mode + "\")");
    if (mode.empty() && plugin.api_version == "client.authentication.k8s.io/v1")
      fail(field + ".interactiveMode", "missing (client.authentication.k8s.io/v1 requires it)");
    plugin.provide_cluster_info =
        boolean(exec["provideClusterInfo"], field + ".provideClusterInfo");
    plugin.server = access.server;
    plugin.ca_pem = access.ca_pem;
    plugin.insecure_skip_tls_verify = access.insecure_skip_tls_verify;
    return plugin;
  }

  // A list's entries (none when absent).
  std::vector<YAML::Node> list(const YAML::Node& node, const std::string& field) const {
    if (!node || node.IsNull()) return {};
    if (!node.IsSequence()) fail(field, "not a list");
    return std::vector<YAML::Node>(node.begin(), node.end());
  }

  // `<key>-data` (base64) or the file `<key>` (relative to the kubeconfig).
  std::string data_or_file(const YAML::Node& parent, const std::string& parent_field,
                           const std::string& key) const {
    const std::string data_field = parent_field + "." + key + "-data";
    const std::string data = scalar(parent[key + "-data"], data_field);
    if (!data.empty()) {
      auto decoded = support::decode_base64(data);
      if (!decoded) fail(data_field, "not valid base64");
      return *decoded;
    }
    const std::string file = scalar(parent[key], parent_field + "." + key);
    if (file.empty()) return "";
    const std::filesystem::path path = resolve(file);
    auto text = read_whole_file(path);
    if (!text) fail(parent_field + "." + key, "cannot read " + path.string());
    return *text;
  }

  // The `inner` mapping of the entry named `name` in the list `list`.
  YAML::Node named(const std::string& list, const std::string& name,
                   const std::string& inner) const {
    const YAML::Node entries = root_[list];
    if (entries && !entries.IsSequence()) fail(list, "not a list");
    for (const YAML::Node& entry : entries) {
      if (!entry.IsMap() || scalar(entry["name"], list + "[].name") != name) continue;
      const YAML::Node body = entry[inner];
      const std::string field = list + "[name=" + name + "]." + inner;
      if (!body) fail(field, "missing");
      if (!body.IsMap()) fail(field, "not a mapping");
      return body;
    }
    fail(list + "[name=" + name + "]", "not found");
  }

  std::string scalar(const YAML::Node& node, const std::string& field) const {
    if (!node || node.IsNull()) return "";
    if (!node.IsScalar()) fail(field, "not a string");
    return node.Scalar();
  }

  bool boolean(const YAML::Node& node, const std::string& field) const {
    if (!node || node.IsNull()) return false;
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      fail(field, "not a boolean (got \"" + (node.IsScalar() ? node.Scalar() : "") + "\")");
    }
    return value;
  }

  std::filesystem::path resolve(const std::string& file) const {
    const std::filesystem::path path(file);
    return path.is_absolute() ? path : folder_ / path;
  }

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw std::runtime_error("kubeconfig " + file_.string() + ": " +
                             (field.empty() ? "" : field + ": ") + problem);
  }

  std::filesystem::path file_;
  std::filesystem::path folder_;
  YAML::Node root_;
};

}  // namespace

ClusterAccess load_kubeconfig(const std::filesystem::path& path, const std::string& context) {
  return KubeconfigReader(path).read(context);
}

}  // namespace gantry::kube
