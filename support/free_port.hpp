// A free TCP port on 127.0.0.1. The port is released before the caller binds
// it, so another process could take it in between; the callers (a gang's
// rendezvous port, a benchmark hub's sockets) then fail loudly rather than
// share it.
#pragma once

#include <cstdint>

namespace gantry::support {

// Throws std::runtime_error when no port can be had.
std::uint16_t free_loopback_port();

}  // namespace gantry::support
