// CPU time of a process, per thread, from /proc: a first, free profile of
// where the hub spends its time (CAF workers, the ZeroMQ I/O thread, the
// detached store actor that writes SQLite).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace gantry::bench::e2e {

// Thread name (comm) -> CPU seconds (user + system), summed over threads that
// share a name. Empty when the process is gone.
std::map<std::string, double> thread_cpu_seconds(pid_t pid);

// a - b per name, for the CPU spent between two snapshots.
std::map<std::string, double> cpu_delta(const std::map<std::string, double>& a,
                                        const std::map<std::string, double>& b);

}  // namespace gantry::bench::e2e
