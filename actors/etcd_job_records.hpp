// How the etcd job store lays out its keys under the hub's prefix, and the
// records it keeps in them (msgpack maps: a field added later reads as its
// default from records written before).
//
//   <prefix>writer             the hub that may write, on its lease (EtcdWriterClaim)
//   <prefix>meta/schema        kEtcdSchemaVersion
//   <prefix>meta/generation    hub starts on this store; first_generation; next_row
//   <prefix>meta/commit        the last transaction's token: an answer lost
//                              in transit is told from a refusal by it
//   <prefix>jobs/<row>         a job that has not ended (EtcdJob)
//   <prefix>dispatches/<row>   its current dispatch (StoredDispatch)
//   <prefix>ended/<row>        a job that ended (EtcdEnded)
//   <prefix>queues/<name>      an applied Queue (EtcdQueue)
//   <prefix>priorityclasses/<name>  an applied PriorityClass's YAML
//   <prefix>cordoned/<name>    a cordoned cluster
//   <prefix>hubs/<name>        a hub on the store, leader or standby, on its
//                              own lease (EtcdHubPresence; JSON)
//
// <row> is 16 hex digits, so that key order is submission order.
#pragma once

#include <cstdint>
#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs
#include <string>
#include <string_view>

#include "actors/job_store.hpp"

namespace gantry::actors {

inline constexpr int kEtcdSchemaVersion = 1;

struct EtcdKeys {
  std::string prefix;  // ends with '/'

  std::string writer() const { return prefix + "writer"; }
  std::string hubs() const { return prefix + "hubs/"; }
  std::string hub(std::string_view name) const { return hubs() + std::string(name); }
  std::string meta(std::string_view name) const { return prefix + "meta/" + std::string(name); }
  std::string jobs() const { return prefix + "jobs/"; }
  std::string job(std::int64_t row) const { return jobs() + row_text(row); }
  std::string dispatches() const { return prefix + "dispatches/"; }
  std::string dispatch(std::int64_t row) const { return dispatches() + row_text(row); }
  std::string ended() const { return prefix + "ended/"; }
  std::string ended_job(std::int64_t row) const { return ended() + row_text(row); }
  std::string queues() const { return prefix + "queues/"; }
  std::string priority_classes() const { return prefix + "priorityclasses/"; }
  std::string cordoned() const { return prefix + "cordoned/"; }

  static std::string row_text(std::int64_t row);
  // The row a jobs/, dispatches/ or ended/ key names; throws when it names none.
  static std::int64_t row_of(std::string_view key);
};

struct EtcdJob {
  std::string name;
  std::string yaml;
  std::int64_t submitted_ms = 0;
  std::string submitter;
  std::string spec;  // msgpack protocol::JobSpec, as StoredJob::spec
  MSGPACK_DEFINE_MAP(name, yaml, submitted_ms, submitter, spec);
};

struct EtcdDispatch {
  std::uint64_t id = 0;
  bool committed = false;
  std::vector<std::string> clusters;
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
  MSGPACK_DEFINE_MAP(id, committed, clusters, rendezvous_host, rendezvous_port);
};

struct EtcdEnded {
  std::string name;
  std::string submitter;
  std::int64_t submitted_ms = 0;
  std::string phase;
  std::int64_t finished_ms = 0;
  std::string queue;
  std::int64_t started_ms = 0;
  std::int64_t gpu_milli = 0;
  std::int64_t expires_ms = 0;  // 0: none
  std::string record;           // msgpack protocol::DescribeReply, as FinishedJob::record
  MSGPACK_DEFINE_MAP(name, submitter, submitted_ms, phase, finished_ms, queue, started_ms,
                     gpu_milli, expires_ms, record);
};

struct EtcdQueue {
  std::int64_t position = 0;  // queues come back in the order first applied
  std::string yaml;
  MSGPACK_DEFINE_MAP(position, yaml);
};

template <class Record>
std::string pack_record(const Record& record) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, record);
  return std::string(buffer.data(), buffer.size());
}

// Throws std::runtime_error naming the key when its value is not such a record:
// a damaged store is refused, never read as empty.
template <class Record>
Record unpack_record(const std::string& key, const std::string& value) {
  try {
    Record record;
    msgpack::unpack(value.data(), value.size()).get().convert(record);
    return record;
  } catch (const std::exception& error) {
    throw std::runtime_error("etcd key " + key + " does not hold a Gantry record (" + error.what() +
                             "): refusing to read a damaged store");
  }
}

StoredDispatch stored_dispatch(const EtcdDispatch& record);
EtcdDispatch etcd_dispatch(const StoredDispatch& dispatch);

}  // namespace gantry::actors
