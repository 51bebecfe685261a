#include "agents/agent_options.hpp"

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace gantry::agents {

namespace {

std::int32_t positive(std::string_view flag, const std::string& text, std::int32_t max) {
  std::int32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > max) {
    throw std::invalid_argument(std::string(flag) + ": must be a whole number from 1 to " +
                                std::to_string(max) + " (got \"" + text + "\")");
  }
  return value;
}

void apply(AgentOptions& options, std::string_view flag, const std::string& value) {
  constexpr std::int32_t kMaxMs = 3600 * 1000;
  if (flag == "--hub") {
    options.hub_endpoint = value;
  } else if (flag == "--cluster") {
    options.cluster = value;
  } else if (flag == "--inventory") {
    options.inventory_path = value;
  } else if (flag == "--executor") {
    if (value != "sim" && value != "process") {
      throw std::invalid_argument("--executor: must be sim or process (got \"" + value + "\")");
    }
    options.executor = value;
  } else if (flag == "--heartbeat-ms") {
    options.heartbeat_ms = positive(flag, value, kMaxMs);
  } else if (flag == "--liveness") {
    options.liveness = positive(flag, value, 1000);
  } else if (flag == "--max-backoff-ms") {
    options.max_backoff_ms = positive(flag, value, kMaxMs);
  } else if (flag == "--work-dir") {
    options.work_dir = value;
  } else if (flag == "--log-level") {
    for (std::string_view level : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
      if (value == level) {
        options.log_level = value;
        return;
      }
    }
    throw std::invalid_argument(
        "--log-level: must be trace, debug, info, warn, error, critical or off (got \"" + value +
        "\")");
  } else {
    throw std::invalid_argument(std::string(flag) + ": unknown option");
  }
}

}  // namespace

AgentOptions parse_agent_options(int argc, const char* const* argv) {
  AgentOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    }
    if (arg.substr(0, 2) != "--") {
      throw std::invalid_argument("unexpected argument \"" + std::string(arg) + "\"");
    }
    std::string value;
    const std::size_t equals = arg.find('=');
    if (equals != std::string_view::npos) {
      value = std::string(arg.substr(equals + 1));
      arg = arg.substr(0, equals);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw std::invalid_argument(std::string(arg) + ": needs a value");
    }
    apply(options, arg, value);
  }
  if (options.hub_endpoint.empty()) throw std::invalid_argument("--hub: is required");
  if (options.inventory_path.empty()) throw std::invalid_argument("--inventory: is required");
  return options;
}

const char* agent_usage() {
  return "usage: gantry-agent --hub tcp://HOST:PORT --inventory FILE [--cluster NAME]\n"
         "                    [--executor sim|process] [--heartbeat-ms N] [--liveness N]\n"
         "                    [--max-backoff-ms N] [--work-dir DIR] [--log-level LEVEL]\n"
         "  --cluster defaults to the inventory's cluster.name; --work-dir to\n"
         "  ./var/agent-<cluster> (process executor logs).\n";
}

}  // namespace gantry::agents
