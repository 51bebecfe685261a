#include "actors/hub_options.hpp"

#include <charconv>
#include <stdexcept>

namespace gantry::actors {

namespace {

const std::vector<std::string> kLogLevels = {"trace", "debug",    "info", "warn",
                                             "error", "critical", "off"};

std::int64_t positive_integer(const std::string& flag, const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0 ||
      value > 86'400'000) {
    throw std::invalid_argument(flag + ": expected a positive integer (got \"" + text + "\")");
  }
  return value;
}

std::string endpoint(const std::string& flag, const std::string& text) {
  if (text.rfind("tcp://", 0) != 0 && text.rfind("ipc://", 0) != 0) {
    throw std::invalid_argument(flag + ": expected tcp://HOST:PORT (got \"" + text + "\")");
  }
  return text;
}

std::string log_level(const std::string& text) {
  for (const std::string& level : kLogLevels) {
    if (level == text) return text;
  }
  throw std::invalid_argument(
      "--log-level: expected trace, debug, info, warn, error, critical or off (got \"" + text +
      "\")");
}

}  // namespace

std::string hub_usage() {
  return "usage: gantry-hub [--agents tcp://HOST:PORT] [--admin tcp://HOST:PORT] [--state DIR]\n"
         "                  [--heartbeat-ms N] [--liveness N] [--recovery-grace-ms N]\n"
         "                  [--log-level LEVEL]\n"
         "  --agents        where agents connect (default tcp://127.0.0.1:7800)\n"
         "  --admin         where gantryctl connects (default tcp://127.0.0.1:7801)\n"
         "  --state         directory for gantry.db (default ./var, created if missing)\n"
         "  --heartbeat-ms  heartbeat interval sent to agents (default 1000)\n"
         "  --liveness      missed heartbeats before a cluster is not ready (default 3)\n"
         "  --recovery-grace-ms  after a restart with unfinished jobs, how long agents have\n"
         "                  to list what they still run before those jobs are placed\n"
         "                  again (default: heartbeat x liveness)\n"
         "  --log-level     trace|debug|info|warn|error|critical|off (default info)\n";
}

HubCommandLine parse_hub_command_line(const std::vector<std::string>& args) {
  HubCommandLine parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "-h" || flag == "--help") {
      parsed.help = true;
      continue;
    }
    if (i + 1 >= args.size()) {
      if (flag.rfind("--", 0) != 0)
        throw std::invalid_argument("unexpected argument \"" + flag + "\"");
      throw std::invalid_argument(flag + ": missing value");
    }
    const std::string& value = args[++i];
    if (flag == "--agents") {
      parsed.options.agents_endpoint = endpoint(flag, value);
    } else if (flag == "--admin") {
      parsed.options.admin_endpoint = endpoint(flag, value);
    } else if (flag == "--state") {
      if (value.empty()) throw std::invalid_argument("--state: expected a directory (got \"\")");
      parsed.options.state_dir = value;
    } else if (flag == "--heartbeat-ms") {
      parsed.options.heartbeat_interval = std::chrono::milliseconds(positive_integer(flag, value));
    } else if (flag == "--liveness") {
      parsed.options.liveness = static_cast<std::int32_t>(positive_integer(flag, value));
    } else if (flag == "--recovery-grace-ms") {
      parsed.options.recovery_grace = std::chrono::milliseconds(positive_integer(flag, value));
    } else if (flag == "--log-level") {
      parsed.log_level = log_level(value);
    } else {
      throw std::invalid_argument("unknown flag \"" + flag + "\"");
    }
  }
  return parsed;
}

}  // namespace gantry::actors
