// The process's file-descriptor budget. Every TCP connection a hub socket
// accepts costs one descriptor; when none is left libzmq's listener fails
// accept() in a loop and nobody new, agent or gantryctl, gets in. So the hub
// raises its soft limit as far as the hard limit allows at start, and keeps
// its sockets' connection limits under it.
#pragma once

#include <cstdint>

namespace gantry::actors {

struct FdLimit {
  std::uint64_t before = 0;  // soft limit found at start
  std::uint64_t soft = 0;    // soft limit now
  std::uint64_t hard = 0;
};

// Raises RLIMIT_NOFILE's soft limit to its hard limit and logs the values.
// Failing to raise it is logged, not thrown: the hub still works, just with
// fewer connections (see connections_within_fd_limit).
FdLimit raise_fd_limit();

// Descriptors kept for everything but accepted connections: the store,
// logs, libzmq's own sockets and wake-up descriptors, HTTPS clients, and the
// connections accepted in a flood before ConnectionGuard closes them.
inline constexpr std::uint64_t kReservedDescriptors = 256;

// The most connections each of `sockets` sockets may keep so that all of them
// together stay within `fd_limit`, never more than `wanted` (and at least 1).
int connections_within_fd_limit(int wanted, int sockets, std::uint64_t fd_limit);

}  // namespace gantry::actors
