#include "bench/e2e/trace_csv.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace gantry::bench::e2e {

void write_trace_csv(const std::string& path, const Timeline& timeline) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  std::int64_t first = INT64_MAX;
  for (std::int64_t t : timeline.submit_ns) {
    if (t != 0) first = std::min(first, t);
  }
  const auto ms = [first](std::int64_t t) { return t == 0 ? -1.0 : (t - first) / 1e6; };
  // dispatch_ms: when the job's first Commit reached a fake cluster (the
  // column kept its name from protocol version 1's one-shot Dispatch).
  out << "job,submit_ms,ack_ms,dispatch_ms\n";
  char line[128];
  for (std::size_t i = 0; i < timeline.submit_ns.size(); ++i) {
    std::snprintf(line, sizeof line, "%zu,%.3f,%.3f,%.3f\n", i, ms(timeline.submit_ns[i]),
                  ms(timeline.ack_ns[i]), ms(timeline.commit_ns[i]));
    out << line;
  }
}

}  // namespace gantry::bench::e2e
