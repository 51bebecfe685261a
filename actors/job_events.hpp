// A short, human-readable history per job for `gantryctl describe job`:
// submitted, dispatched to X, admitted, rejected: reason, requeued, ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hub/job.hpp"

namespace gantry::actors {

class JobEvents {
 public:
  // The first event (submitted) is always kept; later ones roll over.
  static constexpr std::size_t kMaxPerJob = 20;

  void add(hub::JobId job, hub::TimeMs at, std::string text);
  // Oldest first, each prefixed with its UTC time.
  std::vector<std::string> list(hub::JobId job) const;
  // The job was forgotten (deleted): its history goes with it.
  void forget(hub::JobId job);

 private:
  std::vector<std::vector<std::string>> events_;  // indexed by JobId
};

// "2024-05-01T12:00:00.123Z"
std::string format_utc(hub::TimeMs at);

}  // namespace gantry::actors
