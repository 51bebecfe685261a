#include "agents/agent_keys.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "support/curve_keys.hpp"
#include "support/text_trim.hpp"

namespace gantry::agents {

namespace {

constexpr const char* kHowToMakeKeys =
    "make a keypair with 'gantryctl keys generate NAME' and allow its public key in the "
    "hub's access.yaml, or pass --insecure for plaintext";
constexpr const char* kHowToMakeNodeKeys =
    "make a keypair with 'gantryctl keys generate NAME' and list its public key in the "
    "cluster-role agent's --node-keys (or give the node that agent's own keypair), or pass "
    "--insecure for plaintext";

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string chosen(const std::string& flag_value, const std::string& environment_value) {
  return flag_value.empty() ? environment_value : flag_value;
}

// `read` with its error worded as a refused flag.
template <class Read>
auto read_for_flag(const std::string& flag, Read read) {
  try {
    return read();
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(flag + ": " + e.what());
  }
}

}  // namespace

KeyEnvironment process_key_environment() {
  return KeyEnvironment{variable("GANTRY_HUB_KEY"), variable("GANTRY_KEY")};
}

std::vector<std::string> read_node_keys_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("node keys file " + file.string() + ": cannot open it");
  std::vector<std::string> keys;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string entry = support::trimmed(line, " \t\r");
    if (entry.empty() || entry.front() == '#') continue;
    if (support::is_z85_key(entry)) {
      keys.push_back(entry);
      continue;
    }
    std::filesystem::path key_file = entry;
    if (key_file.is_relative()) key_file = file.parent_path() / key_file;
    try {
      keys.push_back(support::read_public_key_file(key_file));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("node keys file " + file.string() + " line " +
                               std::to_string(number) + ": " + e.what());
    }
  }
  return keys;
}

AgentKeys load_agent_keys(const AgentOptions& options, const KeyEnvironment& environment) {
  AgentKeys keys;
  if (options.insecure) return keys;
  const std::string hub_key_file = chosen(options.hub_key_file, environment.hub_key);
  const std::string key_file = chosen(options.key_file, environment.key);
  if (key_file.empty()) {
    throw std::invalid_argument(
        std::string(options.role == "node" ? "--key FILE (or $GANTRY_KEY): is required"
                                           : "--hub-key FILE and --key FILE (or $GANTRY_HUB_KEY "
                                             "and $GANTRY_KEY): are required") +
        " for CurveZMQ; " + (options.role == "node" ? kHowToMakeNodeKeys : kHowToMakeKeys));
  }
  const support::CurveKeyPair own =
      read_for_flag("--key", [&] { return support::read_secret_key_file(key_file); });
  if (options.role == "node") {
    const std::string cluster_key =
        options.cluster_key_file.empty() ? own.public_key : read_for_flag("--cluster-key", [&] {
          return support::read_public_key_file(options.cluster_key_file);
        });
    keys.cluster_agent = support::CurveClientKeys{cluster_key, own};
    return keys;
  }
  if (hub_key_file.empty()) {
    throw std::invalid_argument("--hub-key FILE (or $GANTRY_HUB_KEY): is required for CurveZMQ; " +
                                std::string(kHowToMakeKeys));
  }
  keys.hub = support::CurveClientKeys{
      read_for_flag("--hub-key", [&] { return support::read_public_key_file(hub_key_file); }), own};
  if (options.role == "cluster" && !options.node_listen.empty()) {
    keys.node_server = own;
    keys.node_keys.push_back(own.public_key);
    if (!options.node_keys_file.empty()) {
      const auto listed =
          read_for_flag("--node-keys", [&] { return read_node_keys_file(options.node_keys_file); });
      keys.node_keys.insert(keys.node_keys.end(), listed.begin(), listed.end());
    }
  }
  return keys;
}

}  // namespace gantry::agents
