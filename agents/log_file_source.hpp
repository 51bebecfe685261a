// A replica's log file as a LogSource (the process executor's
// <work-dir>/<job>/<task>-<index>.log): read from --tail's line on; with -f,
// more may come while the job still runs a replica here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "agents/log_source.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class LogFileSource final : public LogSource {
 public:
  LogFileSource(std::filesystem::path file, std::uint64_t offset, bool follow)
      : file_(std::move(file)), offset_(offset), follow_(follow) {}
  bool read(std::string& out, std::size_t max) override;
  bool more_may_come(bool replica_runs) const override { return follow_ && replica_runs; }

 private:
  std::filesystem::path file_;
  std::uint64_t offset_;
  bool follow_;
};

// The source for `request` reading `file`, or nullptr with `why` set when the
// replica has not written it yet.
std::unique_ptr<LogSource> open_log_file(const protocol::LogsRequest& request,
                                         const std::filesystem::path& file, std::string& why);

// Where the last `lines` lines of `file` begin (0 when it has fewer).
std::uint64_t tail_offset(const std::filesystem::path& file, std::int32_t lines);

}  // namespace gantry::agents
