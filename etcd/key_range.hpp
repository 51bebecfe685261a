// etcd addresses a prefix as the half-open key range [prefix, range_end).
#pragma once

#include <string>

namespace gantry::etcd {

// The smallest key greater than every key starting with `prefix`: its last
// byte below 0xff incremented, the 0xff bytes after it dropped. "\0" (etcd's
// "to the end of the keyspace") when there is none, e.g. for "" or "\xff".
std::string prefix_end(const std::string& prefix);

}  // namespace gantry::etcd
