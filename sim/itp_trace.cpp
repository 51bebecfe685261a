#include "sim/itp_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>

#include "sim/csv_reader.hpp"

namespace gantry::sim {
namespace {

enum Column : std::size_t { kJobId, kSubmission, kDuration, kGpus };
constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 4000;
// No real gang is this large; the bound keeps milli-GPU and replica arithmetic far from overflow.
constexpr std::int64_t kMaxGpus = 1 << 20;

// "clusterNN.csv" -> NN (1 to 6 digits); anything else -> nullopt.
std::optional<int> itp_cluster_number(std::string_view name) {
  constexpr std::string_view kPrefix = "cluster";
  constexpr std::string_view kSuffix = ".csv";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix))
    return std::nullopt;
  const std::string_view digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  int number = 0;
  if (digits.size() > 6) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return number;
}

}  // namespace

Trace load_itp_trace(const std::filesystem::path& file) {
  CsvReader reader(file, {"job_id", "submission_time", "duration", "num_gpu"});
  Trace trace{file.stem().string(), {}};
  while (reader.next_row()) {
    if (reader.field(kJobId).empty()) throw reader.error(kJobId, "must not be empty");
    trace.jobs.push_back(
        TraceJob{std::string(reader.field(kJobId)), reader.integer(kSubmission, 0, kMaxSeconds),
                 reader.integer(kDuration, 0, kMaxSeconds), reader.integer(kGpus, 1, kMaxGpus)});
  }
  // The published files are sorted; a hand-edited one may not be.
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  return trace;
}

std::filesystem::path itp_trace_path(const std::filesystem::path& dir, int number) {
  char name[32];
  std::snprintf(name, sizeof name, "cluster%02d.csv", number);
  return dir / name;
}

std::vector<int> find_itp_cluster_numbers(const std::filesystem::path& dir) {
  std::vector<int> numbers;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file()) continue;
    if (const auto number = itp_cluster_number(name)) numbers.push_back(*number);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

}  // namespace gantry::sim
