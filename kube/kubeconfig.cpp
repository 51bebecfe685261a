// load_kubeconfig: the subset of client-go's kubeconfig that names a server
// and static credentials (no exec / auth-provider plugins).
#include <yaml-cpp/yaml.h>

#include <stdexcept>

#include "config/yaml_guard.hpp"
#include "support/base64.hpp"
#include "kube/cluster_access.hpp"
#include "kube/read_file.hpp"

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
    for (const char* plugin : {"exec", "auth-provider"}) {
      if (!has_credentials && user[plugin]) {
        fail(field + "." + plugin, "not supported (give a token, tokenFile or client certificate)");
      }
    }
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
