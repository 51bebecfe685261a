#include "bench/e2e/e2e_options.hpp"

#include <charconv>
#include <stdexcept>

namespace gantry::bench::e2e {

namespace {

template <typename Number>
Number number(const std::string& flag, const std::string& text, bool zero_ok) {
  Number value{};
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool in_range = zero_ok ? !(value < 0) : value > 0;
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || !in_range) {
    throw std::invalid_argument(flag + ": expected a " + (zero_ok ? "non-negative" : "positive") +
                                " number (got \"" + text + "\")");
  }
  return value;
}

std::uint32_t count(const std::string& flag, const std::string& text) {
  return number<std::uint32_t>(flag, text, false);
}

// Flags that take no value; returns false when `flag` is not one of them.
bool apply_switch(E2eOptions& options, const std::string& flag) {
  if (flag == "--help" || flag == "-h") {
    options.help = true;
  } else if (flag == "--no-usage-reports") {
    options.usage_reports = false;
  } else {
    return false;
  }
  return true;
}

void apply_value(E2eOptions& options, const std::string& flag, const std::string& value) {
  if (flag == "--jobs") {
    options.jobs = count(flag, value);
  } else if (flag == "--clusters") {
    options.clusters = count(flag, value);
  } else if (flag == "--nodes") {
    options.nodes = count(flag, value);
  } else if (flag == "--gpus-per-node") {
    options.gpus_per_node = count(flag, value);
  } else if (flag == "--window") {
    options.window = count(flag, value);
  } else if (flag == "--rate") {
    options.rate = number<double>(flag, value, true);
  } else if (flag == "--hold-ms") {
    options.hold_ms = number<std::uint32_t>(flag, value, true);
  } else if (flag == "--raw-messages") {
    options.raw_messages = count(flag, value);
  } else if (flag == "--heartbeat-ms") {
    options.heartbeat_ms = count(flag, value);
  } else if (flag == "--settle-seconds") {
    options.settle_seconds = number<double>(flag, value, false);
  } else if (flag == "--hub") {
    options.hub_binary = value;
  } else if (flag == "--hub-log-level") {
    options.hub_log_level = value;
  } else if (flag == "--trace") {
    options.trace_file = value;
  } else if (flag == "--state") {
    options.state_dir = value;
  } else {
    throw std::invalid_argument("unknown argument \"" + flag + "\"; see --help");
  }
}

}  // namespace

std::string e2e_usage() {
  return "usage: gantry-bench-e2e [--jobs N] [--clusters N] [--nodes N] [--gpus-per-node N]\n"
         "                        [--window N] [--rate R] [--hold-ms N] [--no-usage-reports]\n"
         "                        [--raw-messages N] [--hub PATH] [--hub-log-level LEVEL]\n"
         "                        [--state DIR] [--trace FILE] [--heartbeat-ms N] "
         "[--settle-seconds S]\n"
         "  --jobs            jobs to submit (default 20000), 1 GPU each, unique names\n"
         "  --clusters        simulated member clusters (default 100)\n"
         "  --nodes           nodes per cluster (default 10), --gpus-per-node (default 8)\n"
         "  --window          submissions in flight on the admin socket (default 64)\n"
         "  --rate            paced submissions per second (default 0: as fast as acks come)\n"
         "  --hold-ms         a job runs this long on its fake cluster (default 100)\n"
         "  --no-usage-reports  fake agents skip the UsageReport after each change\n"
         "  --raw-messages    pipelined round trips for the raw ZeroMQ figure (default 200000)\n"
         "  --hub             gantry-hub binary (default: the one built with this benchmark)\n"
         "  --hub-log-level   the hub's --log-level (default warn; info logs 3 lines per job)\n"
         "  --state           the hub's --state (default: a fresh temporary directory)\n"
         "  --trace           write each job's submit/ack/dispatch times to FILE (CSV)\n";
}

E2eOptions parse_e2e_options(const std::vector<std::string>& args) {
  E2eOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (apply_switch(options, args[i])) continue;
    if (i + 1 >= args.size()) {
      throw std::invalid_argument(args[i] + ": missing value (or unknown flag)");
    }
    apply_value(options, args[i], args[i + 1]);
    ++i;
  }
  return options;
}

}  // namespace gantry::bench::e2e
