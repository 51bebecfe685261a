// The CurveZMQ keys gantry-agent runs with, read at start from the files its
// flags (or environment) name, so a missing or broken key stops it before it
// connects anywhere.
//   standalone and cluster role: a client of the hub (--hub-key, --key);
//   cluster role with --node-listen: a server for its node-role agents with its
//     own --key, accepting that key's public half and those in --node-keys;
//   node role: a client of the cluster-role agent (--key, and --cluster-key,
//     by default the public half of --key: one keypair for the whole cluster).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_options.hpp"
#include "support/curve_socket.hpp"

namespace gantry::agents {

// An empty string stands for an unset variable.
struct KeyEnvironment {
  std::string hub_key;  // GANTRY_HUB_KEY
  std::string key;      // GANTRY_KEY
};

KeyEnvironment process_key_environment();

// Empty throughout with --insecure.
struct AgentKeys {
  std::optional<support::CurveClientKeys> hub;
  std::optional<support::CurveKeyPair> node_server;
  std::vector<std::string> node_keys;  // Z85, the server's own first
  std::optional<support::CurveClientKeys> cluster_agent;
};

// Throws std::invalid_argument naming the flags that are missing, or the flag
// and file that cannot be used.
AgentKeys load_agent_keys(const AgentOptions& options, const KeyEnvironment& environment);

// --node-keys: one entry per line, a 40-character Z85 key or the path of a key
// file (relative paths from the list's own directory); blank lines and lines
// starting with '#' are skipped. Throws std::runtime_error naming the file and
// line.
std::vector<std::string> read_node_keys_file(const std::filesystem::path& file);

}  // namespace gantry::agents
