// Unguessable hex text from the kernel's CSPRNG (getrandom), for names that
// must not be predictable: a ZeroMQ routing id another peer could otherwise
// claim first.
#pragma once

#include <cstddef>
#include <string>

namespace gantry::support {

// 2 * `bytes` lowercase hex characters. Throws std::runtime_error when the
// kernel cannot supply randomness.
std::string random_hex(std::size_t bytes);

}  // namespace gantry::support
