// What the hub's actors send each other: atoms, the few internal structs, the
// CAF 0.17 inspector for the wire structs and their CAF type ids.
// Includes CAF: only the actors' own translation units include this file.
#pragma once

#include <caf/all.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "actors/access_list.hpp"
#include "actors/job_store.hpp"
#include "hub/job.hpp"
#include "hub/queue_spec.hpp"
#include "protocol/message_types.hpp"

namespace gantry::actors {

// Who to answer: a ZeroMQ peer and the seq of its request ("" for nobody),
// and who sent it: its key's name and what the key may do (actors/inbound.hpp).
struct ReplyTo {
  std::string peer;
  std::uint64_t seq = 0;
  std::string key;
  Role role = Role::kNone;
  std::vector<std::string> queues;  // an operator's queues; empty: every queue
};

// A Prepare or Commit the scheduler built for one part of a dispatch: the
// dispatcher sends it and sends it again until the part's agent answers.
struct PartFrame {
  std::string cluster;
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::int32_t part = 0;
  bool commit = false;  // false: a Prepare
  std::string frame;    // protocol::encode(...)
};

// A part an agent must stop: Cancel (it was committed) or Abort (it was only
// prepared, or may have been).
struct StopOrder {
  std::string cluster;
  std::uint64_t dispatch_id = 0;
  std::string job;
  bool abort = false;
  std::int32_t part = 0;  // an Abort names the part
  std::string reason;     // an Abort says why
};

// A job's current dispatch for the store, recorded before its frames leave.
struct DispatchRecord {
  std::int64_t row = 0;  // the job's row in the store
  StoredDispatch dispatch;
};

// A SubmitJobsRequest on its way: the queue actor validates its documents,
// the store records the valid jobs (rows), the scheduler queues them and
// answers once for all. Handed from one actor to the next inside this process
// (never serialized); only the actor holding it touches it.
struct SubmissionBatch {
  ReplyTo to;
  std::int64_t submitted_ms = 0;
  // Every job's outcome, in document order; the valid jobs' are decided by
  // the store (a refused write) and then the scheduler.
  std::vector<protocol::SubmittedJob> results;
  // The valid jobs: their place in `results`, request, YAML to keep and row.
  std::vector<std::size_t> valid;
  std::vector<hub::JobRequest> requests;
  std::vector<std::string> yamls;
  std::vector<std::int64_t> rows;  // 0: not recorded (its result says why)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ReplyTo& x) {
  return f(caf::meta::type_name("ReplyTo"), x.peer, x.seq, x.key, x.role, x.queues);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PartFrame& x) {
  return f(caf::meta::type_name("PartFrame"), x.cluster, x.dispatch_id, x.job, x.part, x.commit,
           x.frame);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StopOrder& x) {
  return f(caf::meta::type_name("StopOrder"), x.cluster, x.dispatch_id, x.job, x.abort, x.part,
           x.reason);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StoredDispatch& x) {
  return f(caf::meta::type_name("StoredDispatch"), x.id, x.committed, x.clusters, x.rendezvous_host,
           x.rendezvous_port);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StoredJob& x) {
  return f(caf::meta::type_name("StoredJob"), x.row, x.name, x.yaml, x.submitted_ms, x.dispatch,
           x.submitter, x.spec);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DispatchRecord& x) {
  return f(caf::meta::type_name("DispatchRecord"), x.row, x.dispatch);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FinishedJob& x) {
  return f(caf::meta::type_name("FinishedJob"), x.row, x.phase, x.finished_ms, x.queue,
           x.started_ms, x.gpu_milli, x.expires_ms, x.record);
}

}  // namespace gantry::actors

namespace gantry::protocol {

// CAF 0.17 inspector for every wire struct, walking the same field list as its
// msgpack encoding (GANTRY_WIRE_FIELDS in protocol/wire_fields.hpp).
template <class Inspector, WireStruct T>
typename Inspector::result_type inspect(Inspector& f, T& x) {
  return std::apply(
      [&](auto&... fields) { return f(caf::meta::type_name(T::kWireName), fields...); },
      x.wire_fields());
}

}  // namespace gantry::protocol

// A validated submission travels from the queue actor to the scheduler actor
// inside this process only (its spec is a shared immutable pointer), so it is
// never serialized.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gantry::hub::JobRequest)
// Likewise the spec a submission was validated into, for the store to keep,
// and a Volcano Queue as the queue actor parsed it.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<const gantry::protocol::JobSpec>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gantry::hub::QueueSpec)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<gantry::actors::SubmissionBatch>)

CAF_BEGIN_TYPE_ID_BLOCK(gantry_hub, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::ReplyTo))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::PartFrame))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::StopOrder))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::StoredDispatch))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::StoredJob))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::DispatchRecord))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::FinishedJob))
// Every wire message may travel between actors: one id each, from the table.
#define GANTRY_CAF_MESSAGE_ID(Struct, id, directions) \
  CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::Struct))
GANTRY_WIRE_MESSAGES(GANTRY_CAF_MESSAGE_ID)
#undef GANTRY_CAF_MESSAGE_ID
// Structs that travel inside messages between actors.
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::PlacedReplica))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::RunningDispatch))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::NodeUsage))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::GpuUsage))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::PlacementScores))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::TaskStatus))
CAF_ADD_ATOM(gantry_hub, gantry::actors, tick_atom, "tick")
CAF_ADD_ATOM(gantry_hub, gantry::actors, schedule_atom, "schedule")
CAF_ADD_ATOM(gantry_hub, gantry::actors, connect_atom, "connect")
CAF_ADD_ATOM(gantry_hub, gantry::actors, peer_atom, "peer")
CAF_ADD_ATOM(gantry_hub, gantry::actors, lost_atom, "lost")
CAF_ADD_ATOM(gantry_hub, gantry::actors, silent_atom, "silent")
CAF_ADD_ATOM(gantry_hub, gantry::actors, heard_atom, "heard")
CAF_ADD_ATOM(gantry_hub, gantry::actors, record_atom, "record")
CAF_ADD_ATOM(gantry_hub, gantry::actors, cordon_atom, "cordon")
CAF_ADD_ATOM(gantry_hub, gantry::actors, seen_atom, "seen")
CAF_ADD_ATOM(gantry_hub, gantry::actors, persist_atom, "persist")
CAF_ADD_ATOM(gantry_hub, gantry::actors, restore_atom, "restore")
CAF_ADD_ATOM(gantry_hub, gantry::actors, forget_atom, "forget")
CAF_ADD_ATOM(gantry_hub, gantry::actors, finish_atom, "finish")
CAF_ADD_ATOM(gantry_hub, gantry::actors, recovered_atom, "recovered")
CAF_ADD_ATOM(gantry_hub, gantry::actors, flush_atom, "flush")
CAF_ADD_ATOM(gantry_hub, gantry::actors, priority_class_atom, "prioclass")
CAF_ADD_ATOM(gantry_hub, gantry::actors, history_atom, "history")
CAF_ADD_ATOM(gantry_hub, gantry::actors, degraded_atom, "degraded")
CAF_ADD_ATOM(gantry_hub, gantry::actors, metrics_atom, "metrics")
CAF_ADD_ATOM(gantry_hub, gantry::actors, ready_atom, "ready")
CAF_ADD_ATOM(gantry_hub, gantry::actors, watch_atom, "watch")
CAF_ADD_ATOM(gantry_hub, gantry::actors, gone_atom, "gone")
CAF_END_TYPE_ID_BLOCK(gantry_hub)
