#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "console/yaml_documents.hpp"

namespace gantry::console {

namespace {

void add_submit(CLI::App& command, Invocation& invocation) {
  add_file_flag(command, invocation.file);
}

// Each document of the file is its own job, as with kubectl create -f: one
// refused document does not stop the others, and the exit status says so.
int run_submit(CommandContext& context) {
  const std::vector<std::string> documents = split_yaml_documents(read_input_file(context));
  int status = kExitOk;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const auto reply =
        context.hub().call<protocol::SubmitJobReply>(protocol::SubmitJobRequest{documents[i]});
    if (!reply.ok) {
      context.err << "error: job refused" << document_label(i, documents.size()) << ": "
                  << reply.error << "\n";
      status = kExitFailed;
      continue;
    }
    context.out << reply.job << "\n";  // only the name, so scripts can capture it
  }
  return status;
}

}  // namespace

extern const CommandSpec kSubmitCommand{
    "submit", "submit -f FILE", "submit a Volcano Job (FILE \"-\" reads stdin); prints its name",
    add_submit, run_submit};

}  // namespace gantry::console
