#include "actors/etcd_job_records.hpp"

#include <cstdio>
#include <stdexcept>

namespace gantry::actors {

std::string EtcdKeys::row_text(std::int64_t row) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(row));
  return text;
}

std::int64_t EtcdKeys::row_of(std::string_view key) {
  const std::size_t slash = key.rfind('/');
  const std::string_view digits = key.substr(slash == std::string_view::npos ? 0 : slash + 1);
  std::int64_t row = 0;
  bool valid = digits.size() == 16;
  for (const char c : digits) {
    const int value = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (value < 0) valid = false;
    row = row * 16 + (value < 0 ? 0 : value);
  }
  if (!valid || row <= 0)
    throw std::runtime_error("etcd key " + std::string(key) +
                             " does not end in a job row: refusing to read a damaged store");
  return row;
}

StoredDispatch stored_dispatch(const EtcdDispatch& record) {
  return StoredDispatch{record.id, record.committed, record.clusters, record.rendezvous_host,
                        record.rendezvous_port};
}

EtcdDispatch etcd_dispatch(const StoredDispatch& dispatch) {
  return EtcdDispatch{dispatch.id, dispatch.committed, dispatch.clusters, dispatch.rendezvous_host,
                      dispatch.rendezvous_port};
}

}  // namespace gantry::actors
