#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"

namespace gantry::console {

namespace {

// A request stays well inside the hub's frame limit (--max-frame-bytes,
// 16 MiB by default) however many documents fit the count.
constexpr std::size_t kMaxRequestBytes = 8u << 20;

void add_submit(CLI::App& command, Invocation& invocation) {
  add_file_flags(command, invocation);
}

// A job array stands for up to protocol::kMaxSubmitJobs jobs, one request's
// worth: it goes alone, so that it never finds the request already full.
bool may_be_array(const InputDocument& document) {
  return document.text.find("gantry.io/array") != std::string::npos;
}

// The documents in requests of at most kMaxSubmitDocuments and
// kMaxRequestBytes: [first, last) index ranges.
std::vector<std::pair<std::size_t, std::size_t>> request_ranges(
    const std::vector<InputDocument>& documents) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::size_t first = 0;
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const std::size_t size = documents[i].text.size();
    const bool full = i - first == protocol::kMaxSubmitDocuments ||
                      (i > first && bytes + size > kMaxRequestBytes);
    if (i > first && (full || may_be_array(documents[i]) || may_be_array(documents[i - 1]))) {
      ranges.emplace_back(first, i);
      first = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (first < documents.size()) ranges.emplace_back(first, documents.size());
  return ranges;
}

// Each document is its own job (an array's, one per index), as with kubectl
// create -f: one refused job does not stop the others, and the exit status
// says so. Many documents go in few requests (SubmitJobsRequest).
int run_submit(CommandContext& context) {
  const std::vector<InputDocument> documents = read_input_documents(context);
  int status = kExitOk;
  for (const auto& [first, last] : request_ranges(documents)) {
    protocol::SubmitJobsRequest request;
    for (std::size_t i = first; i < last; ++i) request.yamls.push_back(documents[i].text);
    const auto reply = context.hub().call<protocol::SubmitJobsReply>(request);
    if (!reply.ok) {
      context.err << "error: jobs refused: " << reply.error << "\n";
      status = kExitFailed;
      continue;
    }
    for (const protocol::SubmittedJob& job : reply.jobs) {
      if (job.ok) {
        context.out << job.job << "\n";  // only the name, so scripts can capture it
        continue;
      }
      const auto index = first + static_cast<std::size_t>(job.document);
      const InputDocument& document = documents.at(index);
      context.err << "error: job refused" << document.label(may_be_array(document) ? job.job : "")
                  << ": " << job.error << "\n";
      status = kExitFailed;
    }
  }
  return status;
}

}  // namespace

extern const CommandSpec kSubmitCommand{
    "submit", "submit -f FILE|DIR [-f ...] [-R]",
    "submit Volcano Jobs (FILE \"-\" reads stdin; DIR its .yaml, .yml and .json files); prints "
    "each job's name",
    add_submit, run_submit};

}  // namespace gantry::console
