// cordon, uncordon and drain: operator control of a member cluster. The
// command's name is the action the hub is asked for.
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"

namespace gantry::console {

namespace {

void add_cluster_action(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"cluster"});
  add_name_operand(command, invocation.name);
}

// What the hub did, when its answer does not say: "cluster east drained".
std::string done_text(const Invocation& invocation) {
  return "cluster/" + invocation.name + " " + invocation.command + "ed";
}

int run_cluster_action(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto result = context.hub().call<protocol::AdminResult>(
      protocol::ClusterActionRequest{invocation.command, invocation.name});
  return print_admin_result(context, result, done_text(invocation));
}

}  // namespace

extern const CommandSpec kCordonCommand{"cordon", "cordon cluster NAME",
                                        "no new placements on the cluster; what runs there stays",
                                        add_cluster_action, run_cluster_action};
extern const CommandSpec kUncordonCommand{"uncordon", "uncordon cluster NAME",
                                          "let the cluster take new placements again",
                                          add_cluster_action, run_cluster_action};
extern const CommandSpec kDrainCommand{
    "drain", "drain cluster NAME",
    "cordon, then stop its jobs so they are placed elsewhere\n(each moves once its run has "
    "stopped)",
    add_cluster_action, run_cluster_action};

}  // namespace gantry::console
