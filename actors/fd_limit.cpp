#include "actors/fd_limit.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace gantry::actors {

namespace {

std::uint64_t printable(rlim_t value) {
  return value == RLIM_INFINITY ? std::numeric_limits<std::uint64_t>::max() : value;
}

}  // namespace

FdLimit raise_fd_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("cannot read the file descriptor limit: {}", std::strerror(errno));
    return {};
  }
  FdLimit result{printable(limit.rlim_cur), printable(limit.rlim_cur), printable(limit.rlim_max)};
  if (limit.rlim_cur != limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      result.soft = printable(raised.rlim_cur);
    } else {
      spdlog::warn("cannot raise the file descriptor limit from {} to {}: {}", result.before,
                   result.hard, std::strerror(errno));
    }
  }
  spdlog::info("file descriptor limit: {} (was {}, hard limit {})", result.soft, result.before,
               result.hard);
  return result;
}

int connections_within_fd_limit(int wanted, int sockets, std::uint64_t fd_limit) {
  if (sockets <= 0) return std::max(wanted, 1);
  const std::uint64_t available =
      fd_limit > kReservedDescriptors ? fd_limit - kReservedDescriptors : 0;
  const std::uint64_t per_socket = available / static_cast<std::uint64_t>(sockets);
  return static_cast<int>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(per_socket, std::max(wanted, 1))));
}

}  // namespace gantry::actors
