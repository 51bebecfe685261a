#include "bench/e2e/submit_tool.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "bench/e2e/job_yaml.hpp"
#include "bench/e2e/load_generator.hpp"
#include "config/command_line.hpp"
#include "protocol/envelope.hpp"

namespace gantry::bench::e2e {

namespace {

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string job_name_of(const SubmitToolOptions& options, std::uint32_t index) {
  return options.prefix + "-" + std::to_string(index);
}

bool is_ours(const SubmitToolOptions& options, const std::string& name) {
  return name.rfind(options.prefix + "-", 0) == 0;
}

// Polls `get jobs` (every 200 ms: a listing costs the hub CPU, and the hub
// stamps the times itself, so polling faster would only perturb it) until
// every job has finished or the timeout passes.
void wait_finished(const SubmitToolOptions& options, LoadGenerator& load, SubmitToolResult& out) {
  const std::int64_t deadline = wall_ms() + static_cast<std::int64_t>(options.timeout_s * 1000);
  while (wall_ms() < deadline) {
    const auto jobs = load.list_jobs(10);
    if (jobs) {
      out.started = out.finished = 0;
      for (const protocol::JobInfo& job : *jobs) {
        if (!is_ours(options, job.name)) continue;
        if (job.started_ms > 0) ++out.started;
        if (job.finished_ms > 0) ++out.finished;
        out.last_started_ms = std::max(out.last_started_ms, job.started_ms);
        out.last_finished_ms = std::max(out.last_finished_ms, job.finished_ms);
      }
      if (out.finished >= out.acked) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  out.error = "timed out waiting for the jobs to finish";
}

void define_submit_tool_options(CLI::App& app, SubmitToolOptions& options) {
  namespace cl = command_line;
  cl::configure(
      app,
      "usage: gantry-bench-submit [--hub ENDPOINT] [--jobs N] [--prefix NAME] [--window N]\n"
      "                           [--clusters N] [--batch N] [--accept-only]\n"
      "                           [--timeout SECONDS]\n");
  app.description(
      "Submits N jobs running /bin/true (named PREFIX-0 ...), pipelined, then waits until\n"
      "the hub reports all of them started and finished. Prints one JSON line; its\n"
      "jobs_accepted_per_s is how fast the hub acknowledged them (durably recorded).");
  const auto count = cl::positive<std::uint32_t>("expected a positive number");
  cl::add_text(app, "--hub", options.hub, "the hub's admin socket (default tcp://127.0.0.1:7801)")
      ->type_name("ENDPOINT");
  cl::add_read(app, "--jobs", options.jobs, count, "jobs to submit (default 1000)")->type_name("N");
  cl::add_text(app, "--prefix", options.prefix, "job names are PREFIX-0 ... (default true)")
      ->type_name("NAME");
  cl::add_read(app, "--window", options.window, count, "submissions in flight (default 64)")
      ->type_name("N");
  const auto any_count = [](const std::string& text) -> std::uint32_t {
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
      throw std::invalid_argument("expected a number, 0 or more");
    return value;
  };
  cl::add_read<std::uint32_t>(app, "--clusters", options.clusters, any_count,
                              "wait for this many ready clusters first (default 1; 0: none)")
      ->type_name("N");
  cl::add_read(app, "--batch", options.batch, count,
               "jobs per request: 1 (the default) a SubmitJobRequest each, more a "
               "SubmitJobsRequest of N")
      ->type_name("N");
  app.add_flag("--accept-only", options.accept_only,
               "report the acknowledgements; do not wait for the jobs to run");
  cl::add_read<double>(
      app, "--timeout", options.timeout_s,
      [count](const std::string& text) { return static_cast<double>(count(text)); },
      "give up waiting for the jobs to finish after this long (default 300)")
      ->type_name("SECONDS");
}

// Encoded before the clock starts; frame i carries seq i + 1.
std::vector<std::string> submit_frames(const SubmitToolOptions& options) {
  std::vector<std::string> frames;
  if (options.batch == 1) {
    for (std::uint32_t i = 0; i < options.jobs; ++i)
      frames.push_back(protocol::encode(
          protocol::SubmitJobRequest{true_job_yaml(job_name_of(options, i))}, i + 1));
    return frames;
  }
  for (std::uint32_t first = 0; first < options.jobs; first += options.batch) {
    protocol::SubmitJobsRequest request;
    for (std::uint32_t i = first; i < std::min(options.jobs, first + options.batch); ++i)
      request.yamls.push_back(true_job_yaml(job_name_of(options, i)));
    frames.push_back(protocol::encode(request, frames.size() + 1));
  }
  return frames;
}

}  // namespace

std::string submit_tool_usage() {
  return command_line::usage("gantry-bench-submit", define_submit_tool_options);
}

SubmitToolOptions parse_submit_tool_options(const std::vector<std::string>& args) {
  return command_line::parse_options("gantry-bench-submit", define_submit_tool_options, args);
}

SubmitToolResult run_submit_tool(const SubmitToolOptions& options) {
  SubmitToolResult result;
  LoadGenerator load(options.hub);
  if (load.wait_clusters_ready(options.clusters, 30) < options.clusters) {
    result.error = "the hub has fewer than " + std::to_string(options.clusters) + " ready clusters";
    return result;
  }
  const std::vector<std::string> frames = submit_frames(options);
  result.requests = static_cast<std::uint32_t>(frames.size());
  Timeline timeline(static_cast<std::uint32_t>(frames.size()));
  result.first_submit_ms = wall_ms();
  const LoadResult load_result = load.run(frames, LoadOptions{options.window, 0, 30}, timeline);
  result.last_ack_ms = wall_ms();
  result.acked = load_result.jobs_acked;
  if (!load_result.first_error.empty()) result.error = load_result.first_error;
  if (!options.accept_only) wait_finished(options, load, result);
  return result;
}

std::string submit_tool_json(const SubmitToolOptions& options, const SubmitToolResult& r) {
  const double start_s = (r.last_started_ms - r.first_submit_ms) / 1000.0;
  const double accept_s = (r.last_ack_ms - r.first_submit_ms) / 1000.0;
  char line[1024];
  std::snprintf(line, sizeof line,
                "{\"jobs\": %u, \"batch\": %u, \"requests\": %u, \"acked\": %u, "
                "\"started\": %u, \"finished\": %u, \"first_submit_ms\": %lld, "
                "\"last_ack_ms\": %lld, \"last_started_ms\": %lld, \"last_finished_ms\": %lld, "
                "\"jobs_accepted_per_s\": %.1f, \"jobs_started_per_s\": %.1f, \"error\": \"%s\"}",
                options.jobs, options.batch, r.requests, r.acked, r.started, r.finished,
                static_cast<long long>(r.first_submit_ms), static_cast<long long>(r.last_ack_ms),
                static_cast<long long>(r.last_started_ms),
                static_cast<long long>(r.last_finished_ms), accept_s > 0 ? r.acked / accept_s : 0.0,
                start_s > 0 ? r.started / start_s : 0.0, r.error.c_str());
  return line;
}

}  // namespace gantry::bench::e2e
