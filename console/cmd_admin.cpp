// cancel, apply and delete: requests answered by an AdminResult.
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"

namespace gantry::console {

namespace {

void add_cancel(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"job"});
  add_name_operand(command, invocation.name);
}

void add_apply(CLI::App& command, Invocation& invocation) {
  add_file_flags(command, invocation);
}

void add_delete(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"job", "queue", "priorityclass"});
  add_name_operand(command, invocation.name);
}

int run_cancel(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto result = context.hub().call<protocol::AdminResult>(
      protocol::CancelRequest{invocation.kind, invocation.name});
  return print_admin_result(context, result, "job/" + invocation.name + " cancelled");
}

// Each document of the files is applied on its own, as with kubectl apply -f.
int run_apply(CommandContext& context) {
  const std::vector<InputDocument> documents = read_input_documents(context);
  int status = kExitOk;
  for (const InputDocument& document : documents) {
    auto result = context.hub().call<protocol::AdminResult>(protocol::ApplyRequest{document.text});
    if (!result.ok && !document.where.empty()) {
      std::string& error = result.error.empty() ? result.message : result.error;
      const std::string label = document.label();  // " (a.yaml, document 2 of 3)"
      error = label.substr(2, label.size() - 3) + ": " + error;
    }
    if (print_admin_result(context, result, "applied") != kExitOk) status = kExitFailed;
  }
  return status;
}

int run_delete(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const auto result = context.hub().call<protocol::AdminResult>(
      protocol::DeleteRequest{invocation.kind, invocation.name});
  return print_admin_result(context, result, invocation.kind + "/" + invocation.name + " deleted");
}

}  // namespace

extern const CommandSpec kCancelCommand{
    "cancel", "cancel job NAME", "stop a job on every cluster it runs on", add_cancel, run_cancel};
extern const CommandSpec kApplyCommand{"apply", "apply -f FILE|DIR [-f ...] [-R]",
                                       "create or update a queue or a PriorityClass",
                                       add_apply, run_apply};
extern const CommandSpec kDeleteCommand{
    "delete", "delete job|queue|priorityclass NAME",
    "delete a job (stopping it first if it runs; its name is free again) or a queue", add_delete,
    run_delete};

}  // namespace gantry::console
