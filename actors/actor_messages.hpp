// What the hub's actors send each other: atoms, the few internal structs, and
// CAF 0.17 inspectors for the wire structs that travel between actors.
// Includes CAF: only the actors' own translation units include this file.
#pragma once

#include <caf/all.hpp>
#include <cstdint>
#include <string>

#include "actors/job_store.hpp"
#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// Who to answer: a ZeroMQ peer and the seq of its request ("" for nobody).
struct ReplyTo {
  std::string peer;
  std::uint64_t seq = 0;
};

// A Dispatch frame the scheduler built for one cluster's agent.
struct OutgoingDispatch {
  std::string cluster;
  std::uint64_t dispatch_id = 0;
  std::string job;
  std::string frame;
};

// A dispatch an agent must stop.
struct CancelOrder {
  std::string cluster;
  std::uint64_t dispatch_id = 0;
  std::string job;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ReplyTo& x) {
  return f(caf::meta::type_name("ReplyTo"), x.peer, x.seq);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, OutgoingDispatch& x) {
  return f(caf::meta::type_name("OutgoingDispatch"), x.cluster, x.dispatch_id, x.job, x.frame);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CancelOrder& x) {
  return f(caf::meta::type_name("CancelOrder"), x.cluster, x.dispatch_id, x.job);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StoredJob& x) {
  return f(caf::meta::type_name("StoredJob"), x.row, x.name, x.yaml, x.submitted_ms);
}

}  // namespace gantry::actors

namespace gantry::protocol {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PlacedReplica& x) {
  return f(caf::meta::type_name("PlacedReplica"), x.task, x.node);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RunningDispatch& x) {
  return f(caf::meta::type_name("RunningDispatch"), x.dispatch_id, x.job, x.replicas);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Hello& x) {
  return f(caf::meta::type_name("Hello"), x.cluster, x.labels, x.agent_version, x.running,
           x.ended);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Heartbeat& x) {
  return f(caf::meta::type_name("Heartbeat"), x.cluster, x.hub_epoch);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, NodeUsage& x) {
  return f(caf::meta::type_name("NodeUsage"), x.name, x.labels, x.allocatable, x.allocated,
           x.gpu_model);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, UsageReport& x) {
  return f(caf::meta::type_name("UsageReport"), x.cluster, x.nodes, x.accounted_dispatches);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Admit& x) {
  return f(caf::meta::type_name("Admit"), x.dispatch_id, x.job);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Reject& x) {
  return f(caf::meta::type_name("Reject"), x.dispatch_id, x.job, x.reason);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TaskStatus& x) {
  return f(caf::meta::type_name("TaskStatus"), x.name, x.pending, x.running, x.succeeded, x.failed);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StatusUpdate& x) {
  return f(caf::meta::type_name("StatusUpdate"), x.dispatch_id, x.job, x.phase, x.tasks, x.message);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ErrorReply& x) {
  return f(caf::meta::type_name("ErrorReply"), x.code, x.message);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SubmitJobRequest& x) {
  return f(caf::meta::type_name("SubmitJobRequest"), x.yaml);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ListRequest& x) {
  return f(caf::meta::type_name("ListRequest"), x.kind);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DescribeRequest& x) {
  return f(caf::meta::type_name("DescribeRequest"), x.kind, x.name);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CancelRequest& x) {
  return f(caf::meta::type_name("CancelRequest"), x.kind, x.name);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ApplyRequest& x) {
  return f(caf::meta::type_name("ApplyRequest"), x.yaml);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DeleteRequest& x) {
  return f(caf::meta::type_name("DeleteRequest"), x.kind, x.name);
}

}  // namespace gantry::protocol

// A validated submission travels from the queue actor to the scheduler actor
// inside this process only (its spec is a shared immutable pointer), so it is
// never serialized.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gantry::hub::JobRequest)

CAF_BEGIN_TYPE_ID_BLOCK(gantry_hub, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::ReplyTo))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::OutgoingDispatch))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::CancelOrder))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::actors::StoredJob))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::PlacedReplica))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::RunningDispatch))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::Hello))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::Heartbeat))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::NodeUsage))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::UsageReport))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::Admit))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::Reject))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::TaskStatus))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::StatusUpdate))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::ErrorReply))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::SubmitJobRequest))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::ListRequest))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::DescribeRequest))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::CancelRequest))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::ApplyRequest))
CAF_ADD_TYPE_ID(gantry_hub, (gantry::protocol::DeleteRequest))
CAF_ADD_ATOM(gantry_hub, gantry::actors, tick_atom, "tick")
CAF_ADD_ATOM(gantry_hub, gantry::actors, schedule_atom, "schedule")
CAF_ADD_ATOM(gantry_hub, gantry::actors, connect_atom, "connect")
CAF_ADD_ATOM(gantry_hub, gantry::actors, peer_atom, "peer")
CAF_ADD_ATOM(gantry_hub, gantry::actors, lost_atom, "lost")
CAF_ADD_ATOM(gantry_hub, gantry::actors, seen_atom, "seen")
CAF_ADD_ATOM(gantry_hub, gantry::actors, persist_atom, "persist")
CAF_ADD_ATOM(gantry_hub, gantry::actors, restore_atom, "restore")
CAF_ADD_ATOM(gantry_hub, gantry::actors, forget_atom, "forget")
CAF_ADD_ATOM(gantry_hub, gantry::actors, finish_atom, "finish")
CAF_ADD_ATOM(gantry_hub, gantry::actors, undeliv_atom, "undeliver")
CAF_ADD_ATOM(gantry_hub, gantry::actors, recovered_atom, "recovered")
CAF_ADD_ATOM(gantry_hub, gantry::actors, flush_atom, "flush")
CAF_END_TYPE_ID_BLOCK(gantry_hub)
