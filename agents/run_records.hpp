// What a process-executor agent keeps of each replica it starts, in its state
// directory (--state), so that a restarted agent finds every run it had
// started, as slurmd finds its steps through slurmstepd:
//   runs/<dispatch>-<rank>.run   the record: written and fsynced before the
//                                replica may start
//   runs/<dispatch>-<rank>.exit  its real end, written by its supervisor
//                                (agents/run_supervisor.hpp) when it ends
//   contact                      the agent's last confirmed contact with the
//                                hub, CLOCK_MONOTONIC ms: supervisors fence
//                                their run when it grows older than the
//                                fence timeout
// Every file is replaced whole (temporary file, fsync, rename): a crash leaves
// the old or the new one, never half of one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agents/executor.hpp"

namespace gantry::agents {

struct RunRecord {
  ReplicaKey key;
  std::string job;
  std::string task;  // the task's name
  std::string node;
  std::int32_t part = 0;
  std::int32_t parts = 1;
  std::int32_t task_index = 0;
  pid_t supervisor = -1;
  // The supervisor's start time (/proc/PID/stat): a pid reused by another
  // process after a reboot or a long while is not taken for it.
  std::uint64_t supervisor_start = 0;
  // The part's replicas on this agent when this one was started (an elastic
  // part grows); 0 in a record of an agent that did not write it.
  std::int32_t part_replicas = 0;
};

struct RunEnd {
  int exit_code = 0;  // 128 + signal when killed by a signal
  int signal = 0;
  bool fenced = false;  // its supervisor stopped it: the agent had lost the hub
};

class RunStateDir {
 public:
  // Creates the directory (0700: nobody else needs the records). Throws
  // std::runtime_error.
  explicit RunStateDir(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path record_path(const ReplicaKey& key) const;
  std::filesystem::path exit_path(const ReplicaKey& key) const;
  std::filesystem::path contact_path() const { return dir_ / "contact"; }

  void write_record(const RunRecord& record) const;  // throws std::runtime_error
  // Every readable record; a torn or foreign file is skipped.
  std::vector<RunRecord> records() const;
  // Forgets a replica: its record and its exit file.
  void remove(const ReplicaKey& key) const;
  void write_contact(std::int64_t confirmed_monotonic_ms) const;

 private:
  std::filesystem::path runs_dir() const { return dir_ / "runs"; }
  std::filesystem::path dir_;
};

// Temporary file, fsync, rename, fsync of the directory. Throws std::runtime_error.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);
void write_run_end(const std::filesystem::path& path, const RunEnd& end);
std::optional<RunEnd> read_run_end(const std::filesystem::path& path);
std::optional<std::int64_t> read_contact(const std::filesystem::path& path);
// Field 22 of /proc/PID/stat (clock ticks since boot); 0 when there is no such process.
std::uint64_t process_start_time(pid_t pid);
// CLOCK_MONOTONIC in ms: the agent's steady clock, the same in every process.
std::int64_t monotonic_ms();

}  // namespace gantry::agents
