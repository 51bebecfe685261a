#include <ostream>

#include "console/commands.hpp"
#include "console/describe_views.hpp"

namespace gantry::console {

int run_describe(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto reply = context.hub().call<protocol::DescribeReply>(
      protocol::DescribeRequest{invocation.kind, invocation.name});
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

}  // namespace gantry::console
