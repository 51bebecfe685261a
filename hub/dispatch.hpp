// A dispatch: one placement of a job's gang, in one or more parts (one per
// cluster), and each part's progress through two-phase dispatch
// (docs/wire-flow.md). The core's state (hub/scheduler.hpp) and what the
// pass's stages read (hub/pass_session.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hub/cluster_state.hpp"
#include "hub/job.hpp"
#include "hub/placement.hpp"
#include "hub/resources.hpp"
#include "protocol/messages.hpp"

namespace gantry::hub {

enum class PartState : std::uint8_t {
  kPreparing,  // Prepare sent, no answer yet
  kAdmitted,   // the agent holds its resources; nothing started
  kCommitted,  // Commit decided: its replicas start
  kStopping,   // told to stop (drain); its end requeues the job
  kEnded,      // its agent reported its end
};

// The replicas of one dispatch on one cluster.
struct DispatchPart {
  ClusterIndex cluster = kNoCluster;
  std::vector<NodeAssignment> assignment;  // resources held on nodes
  ResourceVector held;                     // sum of the assignment
  // What its queue is charged: the placed replicas' requests. Differs from
  // `held` only by GPU products the job did not ask for.
  ResourceVector amount;
  // True while the agent's usage report does not yet account for it: the hub
  // then holds its assignment on the nodes itself.
  bool awaiting_report = true;
  // True once a report left it out after one had counted it: its agent ended
  // it, and the nodes already show its resources free.
  bool left_report = false;
  PartState state = PartState::kPreparing;
  JobPhase end = JobPhase::kPending;        // kCompleted / kFailed once kEnded
  std::vector<std::int32_t> task_replicas;  // per GangShape task
  // Per GangShape task: the index (within the task, over every part) of this
  // part's first replica.
  std::vector<std::int32_t> task_index_offset;
  std::int32_t rank_offset = 0;             // global RANK of its first replica
  std::vector<protocol::TaskStatus> tasks;  // the last counts its agent sent
  // Committed, but its agent says its replicas do not all run yet, and why
  // (Kubernetes pods Pending: "worker-0: Unschedulable: 0/3 nodes ..."); "" once they run.
  std::string waiting;
  // The replica whose end failed the part, as its agent named it
  // (note_part_failure): index in JobSpec::tasks (-1: not named), replica
  // index within the task, exit code.
  std::int32_t failed_task = -1;
  std::int32_t failed_replica = -1;
  std::int32_t failed_exit_code = 0;
};

// A part that ended in the hub while its agent's last report still counted it.
struct EndedUnreported {
  DispatchId dispatch = 0;
  std::vector<NodeAssignment> assignment;
};

struct Dispatch {
  DispatchId id = 0;
  JobId job = 0;
  std::uint32_t epoch = 0;          // the job's epoch when it was placed
  std::vector<DispatchPart> parts;  // parts[0] holds rank 0
  ResourceVector amount;            // what its queue is charged: the parts' sum
  std::int32_t world_size = 0;      // replicas over every part
  bool committed = false;
  TimeMs committed_ms = 0;  // when every part was committed (or it was recovered)
  // Where the gang meets (MASTER_ADDR / MASTER_PORT): from part 0's admit.
  std::string rendezvous_host;
  std::int32_t rendezvous_port = 0;
  // When its time limit ends it (started + limit; until committed, placed +
  // limit); kNever without a limit.
  TimeMs limit_end = kNever;
  // When backfill plans take it to end: limit_end, or with learned runtimes
  // the start plus its queue's expected runtime until it runs past that
  // (planned_ends.cpp).
  TimeMs planned_end = kNever;
  bool ends_on_nodes = false;  // planned_end is counted on its nodes' drain times
  // Elastic jobs (elastic.cpp, elastic_growth.cpp): the membership generation, one more on every
  // grow or shrink; a growth of the last part awaiting its agent's answer
  // (held by the hub, charged to the queue); a refused growth's backoff.
  std::uint32_t elastic_epoch = 0;
  std::vector<NodeAssignment> growing;
  ResourceVector growing_amount;
  TimeMs growing_until = 0;
  TimeMs grow_after = 0;
  std::int32_t grow_refusals = 0;

  // nullptr when no part is on `cluster`.
  const DispatchPart* part_on(ClusterIndex cluster) const;
  DispatchPart* part_on(ClusterIndex cluster);
  std::vector<ClusterIndex> clusters() const;
  // Replicas of the task on the part, after its pending growth when `with_growth`.
  std::int32_t part_replicas(std::size_t part, std::uint32_t task, bool with_growth) const;
};

}  // namespace gantry::hub
