#include "sim/jobs_csv.hpp"

namespace gantry::sim {

void write_jobs_csv(std::ostream& out, const std::vector<SimCluster>& clusters,
                    const std::vector<Trace>& traces, const ReplayResult& result) {
  constexpr hub::TimeMs kMs = 1000;
  out << "trace,job_id,gpus,submit_s,start_s,wait_s,duration_s,limit_s,cluster,parts,evictions,"
         "lost_s\n";
  for (const JobOutcome& job : result.jobs) {
    if (!job.ran) continue;
    const Trace& trace = traces[job.trace];
    out << trace.cluster_name << ',' << trace.jobs[job.row].id << ',' << job.gpus << ','
        << job.submit_ms / kMs << ',' << job.start_ms / kMs << ',' << job.wait_ms() / kMs << ','
        << job.duration_ms / kMs << ',' << job.limit_ms / kMs << ',' << clusters[job.cluster].name
        << ',' << job.parts << ',' << job.evictions << ',' << job.lost_ms / kMs << '\n';
  }
}

}  // namespace gantry::sim
