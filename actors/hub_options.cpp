#include "actors/hub_options.hpp"

#include "config/command_line.hpp"

namespace gantry::actors {

namespace {

namespace cl = command_line;

const cl::Wording kWording{"{}: missing value", "unknown flag \"{}\"",
                           "unexpected argument \"{}\""};

std::string endpoint(const std::string& text) {
  if (text.rfind("tcp://", 0) != 0 && text.rfind("ipc://", 0) != 0)
    throw std::invalid_argument("expected tcp://HOST:PORT");
  return text;
}

std::string directory(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a directory");
  return text;
}

cl::Reader<std::chrono::milliseconds> milliseconds() {
  const auto read = cl::positive<std::int64_t>("expected a positive integer", 86'400'000);
  return [read](const std::string& text) { return std::chrono::milliseconds(read(text)); };
}

void define(CLI::App& app, HubCommandLine& parsed) {
  cl::configure(
      app,
      "usage: gantry-hub [--agents tcp://HOST:PORT] [--admin tcp://HOST:PORT] [--state DIR]\n"
      "                  [--heartbeat-ms N] [--liveness N] [--recovery-grace-ms N]\n"
      "                  [--log-level LEVEL]\n");
  HubOptions& options = parsed.options;
  cl::add_read<std::string>(app, "--agents", options.agents_endpoint, endpoint,
                            "where agents connect (default tcp://127.0.0.1:7800)")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::string>(app, "--admin", options.admin_endpoint, endpoint,
                            "where gantryctl connects (default tcp://127.0.0.1:7801)")
      ->type_name("tcp://HOST:PORT");
  cl::add_read<std::filesystem::path>(app, "--state", options.state_dir, directory,
                                      "directory for gantry.db (default ./var, created if missing)")
      ->type_name("DIR");
  cl::add_read(app, "--heartbeat-ms", options.heartbeat_interval, milliseconds(),
               "heartbeat interval sent to agents (default 1000)")
      ->type_name("N");
  cl::add_read<std::int32_t>(app, "--liveness", options.liveness,
                             cl::positive<std::int32_t>("expected a positive integer", 86'400'000),
                             "missed heartbeats before a cluster is not ready (default 3)")
      ->type_name("N");
  cl::add_read<std::optional<std::chrono::milliseconds>>(
      app, "--recovery-grace-ms", options.recovery_grace, milliseconds(),
      "after a restart with unfinished jobs, how long agents have\n"
      "to list what they still run before those jobs are placed\n"
      "again (default: heartbeat x liveness)")
      ->type_name("N");
  cl::add_log_level(app, parsed.log_level);
}

}  // namespace

HubCommandLine parse_hub_command_line(const std::vector<std::string>& args) {
  return cl::parse_options("gantry-hub", define, args, kWording);
}

std::string hub_usage() {
  return cl::usage("gantry-hub", define);
}

}  // namespace gantry::actors
