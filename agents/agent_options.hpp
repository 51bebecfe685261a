// gantry-agent's command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agents/test_faults.hpp"

namespace gantry::agents {

struct AgentOptions {
  std::string hub_endpoint;      // --hub tcp://HOST:PORT (required)
  std::string cluster;           // --cluster NAME (else the inventory's cluster.name)
  std::string inventory_path;    // --inventory FILE (required; .yaml or openb .csv)
  std::string executor = "sim";  // --executor sim|process
  std::int32_t heartbeat_ms = 1000;
  std::int32_t liveness = 3;
  std::int32_t max_backoff_ms = 32000;  // reconnect backoff cap (tests use small values)
  std::string work_dir;                 // --work-dir, default ./var/agent-<cluster>
  // --advertise-address: the rendezvous host this agent gives when it holds
  // part 0 of a gang (MASTER_ADDR of every replica, in every cluster).
  std::string advertise_address = "127.0.0.1";
  std::int32_t prepare_hold_ms = 60000;  // an admitted part's hold without a Commit
  TestFaults test_faults;                // --test-fault SPEC (repeatable; tests only)
  std::string log_level = "info";
  bool help = false;
};

// Throws std::invalid_argument naming the flag and the value it refuses.
// Takes the arguments after the program name.
AgentOptions parse_agent_options(const std::vector<std::string>& args);
std::string agent_usage();

}  // namespace gantry::agents
