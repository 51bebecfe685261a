// A free TCP port on 127.0.0.1, for the hub's sockets. The port is released
// before the hub binds it, so another process could take it in between; on a
// benchmark machine that race is rare enough, and the hub then fails loudly.
#pragma once

#include <cstdint>

namespace gantry::bench::e2e {

std::uint16_t free_loopback_port();

}  // namespace gantry::bench::e2e
