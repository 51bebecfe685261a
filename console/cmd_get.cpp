#include <CLI/CLI.hpp>
#include <ostream>

#include "console/cluster_views.hpp"
#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "console/duration.hpp"
#include "console/event_views.hpp"
#include "console/hub_views.hpp"
#include "console/job_filters.hpp"
#include "console/job_phase.hpp"
#include "console/job_views.hpp"
#include "console/queue_views.hpp"
#include "console/server_warnings.hpp"

namespace gantry::console {

namespace {

struct Listing {
  std::size_t count = 0;
  std::string text;
};

Listing render_listing(const Invocation& invocation, const protocol::ListReply& reply,
                       std::int64_t now_ms) {
  const bool json = invocation.json;
  if (invocation.kind == "jobs") {
    const std::vector<protocol::JobInfo> jobs =
        filter_jobs(reply.jobs, JobFilter{invocation.phase_filter, invocation.since}, now_ms);
    return {jobs.size(), json ? render_jobs_json(jobs) : render_jobs_table(jobs, now_ms)};
  }
  if (invocation.kind == "usage") {
    const std::vector<QueueUsage> usage = queue_usage(reply.jobs, invocation.since, now_ms);
    return {usage.size(), json ? render_usage_json(usage) : render_usage_table(usage)};
  }
  if (invocation.kind == "clusters") {
    if (json) return {reply.clusters.size(), render_clusters_json(reply.clusters)};
    return {reply.clusters.size(), invocation.wide ? render_clusters_wide_table(reply.clusters)
                                                   : render_clusters_table(reply.clusters)};
  }
  if (invocation.kind == "events") {
    return {reply.events.size(),
            json ? render_events_json(reply.events) : render_events_table(reply.events)};
  }
  if (invocation.kind == "hubs") {
    return {reply.hubs.size(),
            json ? render_hubs_json(reply.hubs) : render_hubs_table(reply.hubs, now_ms)};
  }
  if (invocation.kind == "priorityclasses") {
    return {reply.priority_classes.size(),
            json ? render_priority_classes_json(reply.priority_classes)
                 : render_priority_classes_table(reply.priority_classes)};
  }
  return {reply.queues.size(),
          json ? render_queues_json(reply.queues) : render_queues_table(reply.queues)};
}

void add_get(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind,
                   {"jobs", "clusters", "queues", "priorityclasses", "usage", "events", "hubs"});
  command.add_flag("-w,--watch", invocation.watch,
                   "after the list, print what changes as it changes (jobs, clusters, queues, "
                   "events)");
  add_value_flag(command, "--job", "NAME", [&invocation](const std::string& value) {
    if (value.empty()) throw UsageError("--job: empty job name");
    invocation.job = value;
  });
  add_value_flag(command, "--phase", "PHASE", [&invocation](const std::string& value) {
    invocation.phase_filter = canonical_job_phase("--phase", value);
  });
  add_value_flag(command, "--since", "DURATION", [&invocation](const std::string& value) {
    try {
      invocation.since = parse_duration(value);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--since: ") + e.what());
    }
  });
  // As in kubectl, wide is accepted for every kind; jobs and queues have no
  // extra columns yet and print their table.
  add_value_flag(command, "-o,--output", "json|table|wide",
                 [&invocation](const std::string& value) {
                   if (value != "json" && value != "table" && value != "wide") {
                     throw UsageError("-o: unknown output format \"" + value +
                                      "\" (expected json, table or wide)");
                   }
                   invocation.json = value == "json";
                   invocation.wide = value == "wide";
                 });
}

// Each later answer's rows under the first's header, as kubectl get -w
// prints them.
std::string without_header(const std::string& table) {
  const std::size_t end = table.find('\n');
  return end == std::string::npos ? "" : table.substr(end + 1);
}

// The first answer within the request timeout; then changes as the hub
// pushes them, until interrupted or the hub misses three keepalives.
int watch(CommandContext& context, const protocol::ListRequest& request) {
  const Invocation& invocation = context.invocation;
  HubClient& hub = context.hub();
  const std::uint64_t seq = hub.open(request);
  const auto reply = hub.next<protocol::ListReply>(seq, invocation.request_timeout);
  print_server_warnings(context.err, reply.warnings);
  if (!reply.ok) {
    context.err << "error: " << reply.error << "\n";
    return kExitFailed;
  }
  bool header_printed = false;
  for (protocol::ListReply changes = reply;;
       changes = hub.next<protocol::ListReply>(
           seq, std::chrono::milliseconds(3 * protocol::kWatchKeepaliveMs))) {
    const Listing listing = render_listing(invocation, changes, context.now_ms());
    if (listing.count == 0) continue;  // a keepalive, or no row passed the filters
    context.out << (header_printed && !invocation.json ? without_header(listing.text)
                                                       : listing.text)
                << std::flush;
    header_printed = true;
  }
}

protocol::ListRequest list_request(const Invocation& invocation, std::int64_t now_ms) {
  protocol::ListRequest request;
  // Usage is worked out here from the jobs, ended ones included.
  request.kind = invocation.kind == "usage" ? "jobs" : invocation.kind;
  request.job = invocation.job;
  if (invocation.kind == "events" && invocation.since)
    request.since_ms = now_ms - invocation.since->count();
  request.watch = invocation.watch;
  return request;
}

int run_get(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  if (!invocation.job.empty() && invocation.kind != "events")
    throw UsageError("--job: only get events takes it");
  if (invocation.watch && (invocation.kind == "usage" || invocation.kind == "priorityclasses" ||
                           invocation.kind == "hubs"))
    throw UsageError("-w: get " + invocation.kind + " cannot be watched");
  const protocol::ListRequest request = list_request(invocation, context.now_ms());
  if (request.watch) return watch(context, request);
  const auto reply = context.hub().call<protocol::ListReply>(request);
  print_server_warnings(context.err, reply.warnings);
  if (!reply.ok) {
    context.err << "error: " << reply.error << "\n";
    return kExitFailed;
  }
  const Listing listing = render_listing(invocation, reply, context.now_ms());
  // A table with only headers helps nobody; JSON keeps its [] for scripts.
  if (listing.count == 0 && !invocation.json) {
    context.err << "No " << invocation.kind << " found.\n";
    return kExitOk;
  }
  context.out << listing.text;
  return kExitOk;
}

}  // namespace

extern const CommandSpec kGetCommand{
    "get",
    "get jobs|clusters|queues|priorityclasses|usage|events|hubs [--phase PHASE] "
    "[--since DURATION] [--job NAME] [-w]",
    "list, as a table (-o wide: more columns) or with -o json as a JSON array;\n"
    "jobs: --phase keeps one phase, --since the jobs not ended or ended within it\n"
    "(e.g. 24h, 7d); usage: per queue, the jobs that ran, GPU-hours and waits\n"
    "over --since (default: everything the hub keeps); events: what happened to\n"
    "jobs, oldest first (--job: one job's, --since: within it); hubs: the hubs on\n"
    "the job store, the leader and those standing by; -w: then print changes as\n"
    "they happen, until interrupted",
    add_get, run_get};

}  // namespace gantry::console
