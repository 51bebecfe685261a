#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "console/describe_views.hpp"
#include "console/server_warnings.hpp"

namespace gantry::console {

namespace {

void add_describe(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"job", "queue", "cluster"});
  add_name_operand(command, invocation.name);
}

int run_describe(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto reply = context.hub().call<protocol::DescribeReply>(
      protocol::DescribeRequest{invocation.kind, invocation.name});
  print_server_warnings(context.err, reply.warnings);
  if (!reply.ok) {
    context.err << "error: " << reply.error << "\n";
    return kExitFailed;
  }
  if (invocation.kind == "job") {
    context.out << render_job_description(reply, context.now_ms());
  } else if (invocation.kind == "queue") {
    context.out << render_queue_description(reply.queue);
  } else {
    context.out << render_cluster_description(reply.cluster, context.now_ms());
  }
  return kExitOk;
}

}  // namespace

extern const CommandSpec kDescribeCommand{"describe", "describe job|queue|cluster NAME",
                                          "show one object in detail, with a job's events",
                                          add_describe, run_describe};

}  // namespace gantry::console
