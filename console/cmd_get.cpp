#include <CLI/CLI.hpp>
#include <algorithm>
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
#include "console/json_fields.hpp"
#include "console/output_formats.hpp"
#include "console/queue_views.hpp"
#include "console/server_warnings.hpp"

namespace gantry::console {

namespace {

struct Listing {
  std::size_t count = 0;
  std::string text;
};

// The one object get NAME asks for, or all of them.
template <class Item>
std::vector<Item> named(std::vector<Item> items, const std::string& name) {
  if (!name.empty()) std::erase_if(items, [&](const Item& item) { return item.name != name; });
  return items;
}

// By name, as kubectl lists: the hub keeps clusters in the order their agents
// first came, which changes from run to run.
template <class Item>
std::vector<Item> by_name(std::vector<Item> items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.name < b.name; });
  return items;
}

// -o json's array re-read, as -o yaml or -o name print it; with a NAME, the
// one object rather than an array of one (as kubectl get KIND NAME prints).
std::string structured(const Invocation& invocation, std::string json_array) {
  if (!invocation.yaml && !invocation.names_only && invocation.name.empty()) return json_array;
  Json json = Json::parse(json_array);
  if (invocation.names_only) return name_lines(json, singular_kind(invocation.kind));
  if (!invocation.name.empty() && json.size() == 1) json = json.front();
  return invocation.yaml ? yaml_text(json) : json_text(json);
}

template <class Item, class Table, class JsonArray>
Listing listing_of(const Invocation& invocation, const std::vector<Item>& items, Table table,
                   JsonArray json_array) {
  const bool structured_output = invocation.json || invocation.yaml || invocation.names_only;
  return {items.size(),
          structured_output ? structured(invocation, json_array(items)) : table(items)};
}

Listing render_listing(const Invocation& invocation, const protocol::ListReply& reply,
                       std::int64_t now_ms) {
  const std::string& name = invocation.name;
  if (invocation.kind == "jobs") {
    const JobFilter filter{invocation.phase_filter, invocation.queue_filter,
                           invocation.cluster_filter, invocation.since, invocation.label_filter};
    return listing_of(
        invocation, named(filter_jobs(reply.jobs, filter, now_ms), name),
        [now_ms](const auto& jobs) { return render_jobs_table(jobs, now_ms); }, render_jobs_json);
  }
  if (invocation.kind == "usage") {
    const std::vector<QueueUsage> usage = queue_usage(reply.jobs, invocation.since, now_ms);
    return listing_of(invocation, usage, render_usage_table, render_usage_json);
  }
  if (invocation.kind == "clusters") {
    const bool wide = invocation.wide;
    return listing_of(
        invocation, by_name(named(reply.clusters, name)),
        [wide](const auto& clusters) {
          return wide ? render_clusters_wide_table(clusters) : render_clusters_table(clusters);
        },
        render_clusters_json);
  }
  if (invocation.kind == "events")
    return listing_of(invocation, reply.events, render_events_table, render_events_json);
  if (invocation.kind == "hubs") {
    return listing_of(
        invocation, named(reply.hubs, name),
        [now_ms](const auto& hubs) { return render_hubs_table(hubs, now_ms); }, render_hubs_json);
  }
  if (invocation.kind == "priorityclasses") {
    return listing_of(invocation, named(reply.priority_classes, name),
                      render_priority_classes_table, render_priority_classes_json);
  }
  const bool wide = invocation.wide;
  return listing_of(
      invocation, named(reply.queues, name),
      [wide](const auto& queues) { return render_queues_table(queues, wide); }, render_queues_json);
}

void add_get(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind,
                   {"jobs", "clusters", "queues", "priorityclasses", "usage", "events", "hubs"});
  command.add_option("NAME", invocation.name, "only this one (get job NAME, get queue NAME, ...)");
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
  add_value_flag(command, "--queue", "QUEUE", [&invocation](const std::string& value) {
    if (value.empty()) throw UsageError("--queue: empty queue name");
    invocation.queue_filter = value;
  });
  add_value_flag(command, "--cluster", "CLUSTER", [&invocation](const std::string& value) {
    if (value.empty()) throw UsageError("--cluster: empty cluster name");
    invocation.cluster_filter = value;
  });
  add_value_flag(command, "-l,--selector", "SELECTOR", [&invocation](const std::string& value) {
    invocation.label_filter = parse_label_selector(value);
  });
  add_value_flag(command, "--since", "DURATION", [&invocation](const std::string& value) {
    try {
      invocation.since = parse_duration(value);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--since: ") + e.what());
    }
  });
  // As in kubectl, wide is accepted for every kind; those with no extra
  // columns (all but clusters and queues) print their table.
  add_value_flag(command, "-o,--output", "table|wide|json|yaml|name",
                 [&invocation](const std::string& value) {
                   if (value != "json" && value != "table" && value != "wide" && value != "yaml" &&
                       value != "name") {
                     throw UsageError("-o: unknown output format \"" + value +
                                      "\" (expected table, wide, json, yaml or name)");
                   }
                   invocation.json = value == "json";
                   invocation.wide = value == "wide";
                   invocation.yaml = value == "yaml";
                   invocation.names_only = value == "name";
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
    const bool table = !invocation.json && !invocation.yaml && !invocation.names_only;
    if (header_printed && invocation.yaml) context.out << "---\n";  // one YAML document each
    context.out << (header_printed && table ? without_header(listing.text) : listing.text)
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
  if ((!invocation.queue_filter.empty() || !invocation.cluster_filter.empty()) &&
      invocation.kind != "jobs")
    throw UsageError(std::string(invocation.queue_filter.empty() ? "--cluster" : "--queue") +
                     ": only get jobs takes it");
  if (!invocation.label_filter.empty() && invocation.kind != "jobs")
    throw UsageError("-l: only get jobs takes it");
  const bool unnamed = invocation.kind == "events" || invocation.kind == "usage";
  if (unnamed && !invocation.name.empty())
    throw UsageError("get " + invocation.kind + " takes no NAME" +
                     (invocation.kind == "events" ? " (one job's: --job NAME)" : ""));
  if (unnamed && invocation.names_only)
    throw UsageError("-o name: get " + invocation.kind + " lists no named objects");
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
  // As kubectl get KIND NAME: a name that is not there is an error.
  if (listing.count == 0 && !invocation.name.empty()) {
    context.err << "error: " << singular_kind(invocation.kind) << " \"" << invocation.name
                << "\" not found\n";
    return kExitFailed;
  }
  // A table with only headers helps nobody; JSON and YAML keep their [] for scripts.
  if (listing.count == 0 && !invocation.json && !invocation.yaml) {
    context.err << "No " << invocation.kind << " found.\n";
    return kExitOk;
  }
  context.out << listing.text;
  return kExitOk;
}

}  // namespace

extern const CommandSpec kGetCommand{
    "get",
    "get jobs|clusters|queues|priorityclasses|usage|events|hubs [NAME] [--phase PHASE] "
    "[--queue QUEUE] [--cluster CLUSTER] [--since DURATION] [--job NAME] [-w] "
    "[-o table|wide|json|yaml|name]",
    "list, as a table (-o wide: more columns), with -o json as a JSON array, -o yaml\n"
    "the same as YAML, -o name as KIND/NAME lines; NAME: only that one (an error\n"
    "when there is none); jobs: --phase keeps one phase, --queue one queue's,\n"
    "--cluster those whose latest placement is there, --since the jobs not ended or\n"
    "ended within it (e.g. 24h, 7d); usage: per queue, the jobs that ran, GPU-hours and waits\n"
    "over --since (default: everything the hub keeps); events: what happened to\n"
    "jobs, oldest first (--job: one job's, --since: within it); hubs: the hubs on\n"
    "the job store, the leader and those standing by; -w: then print changes as\n"
    "they happen, until interrupted",
    add_get, run_get};

}  // namespace gantry::console
