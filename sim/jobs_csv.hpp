// Every job's outcome as CSV (gantry-sim --jobs-csv): which jobs waited, when
// and where they ran, for the analyses the summary figures cannot answer.
#pragma once

#include <ostream>
#include <vector>

#include "sim/cluster_layout.hpp"
#include "sim/itp_trace.hpp"
#include "sim/replay.hpp"

namespace gantry::sim {

// A header, then one line per job that ran, in outcome order (trace by trace,
// file order): trace,job_id,gpus,submit_s,start_s,wait_s,duration_s,limit_s,
// cluster,parts,evictions,lost_s. Times in seconds (ms / 1000, rounded down);
// limit_s 0: none; cluster: where its last run went (its first part).
void write_jobs_csv(std::ostream& out, const std::vector<SimCluster>& clusters,
                    const std::vector<Trace>& traces, const ReplayResult& result);

}  // namespace gantry::sim
