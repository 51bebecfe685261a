// Where gantryctl logs reads one replica's output from: a file the process
// executor's replica writes, or a pod's log through the Kubernetes API
// server. LogStreams pulls from it on the agent loop's thread.
#pragma once

#include <cstddef>
#include <string>

namespace gantry::agents {

class LogSource {
 public:
  virtual ~LogSource() = default;
  // Appends the log's next bytes, at most `max`, to `out`; false when it has
  // none now.
  virtual bool read(std::string& out, std::size_t max) = 0;
  // Asked after read() had nothing: whether more may still come.
  // `replica_runs`: whether the job still ran a replica here just before
  // that read (a file's replica may still append to it).
  virtual bool more_may_come(bool replica_runs) const = 0;
  // Once nothing more may come: why the log ended early, "" when it was read
  // to its end.
  virtual std::string error() const { return ""; }
};

}  // namespace gantry::agents
