#include "etcd/types.hpp"

#include <utility>

namespace gantry::etcd {

Compare Compare::mod_revision(std::string key, Result result, std::int64_t revision) {
  return Compare{std::move(key), Target::kModRevision, result, revision, {}};
}

Compare Compare::create_revision(std::string key, Result result, std::int64_t revision) {
  return Compare{std::move(key), Target::kCreateRevision, result, revision, {}};
}

Compare Compare::version(std::string key, Result result, std::int64_t version) {
  return Compare{std::move(key), Target::kVersion, result, version, {}};
}

Compare Compare::value(std::string key, Result result, std::string value) {
  return Compare{std::move(key), Target::kValue, result, 0, std::move(value)};
}

Op Op::put(std::string key, std::string value, std::int64_t lease) {
  return Op{Kind::kPut, std::move(key), std::move(value), lease, false};
}

Op Op::remove(std::string key) {
  return Op{Kind::kDelete, std::move(key), {}, 0, false};
}

Op Op::remove_prefix(std::string prefix) {
  return Op{Kind::kDelete, std::move(prefix), {}, 0, true};
}

Op Op::get(std::string key) {
  return Op{Kind::kRange, std::move(key), {}, 0, false};
}

Op Op::range(std::string prefix) {
  return Op{Kind::kRange, std::move(prefix), {}, 0, true};
}

}  // namespace gantry::etcd
