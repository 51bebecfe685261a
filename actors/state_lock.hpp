// One hub per state directory, as Slurm locks its StateSaveLocation: two
// hubs writing one store would each schedule its jobs. The lock is an
// flock(2) on <state>/hub.lock, held for the hub's life and dropped by the
// kernel when the process dies (kill -9 included), so no stale lock needs
// clearing. The file names its holder, for the error a second hub gives.
#pragma once

#include <filesystem>
#include <string>

namespace gantry::actors {

class StateLock {
 public:
  // Creates `state_dir` (mode 0700) if missing and takes its lock. Throws
  // std::runtime_error naming the directory and the holder when another
  // process holds it.
  explicit StateLock(const std::filesystem::path& state_dir);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

  static std::filesystem::path file_in(const std::filesystem::path& state_dir) {
    return state_dir / "hub.lock";
  }
  // Who holds the lock on `state_dir` ("pid 4242 on host-a since ..."), ""
  // when nobody does.
  static std::string holder(const std::filesystem::path& state_dir);

 private:
  int fd_ = -1;
};

}  // namespace gantry::actors
