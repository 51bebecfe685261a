// The queue stage of a pass: queues are served in hierarchical weighted-DRF
// order (hub/queue_order.hpp), one job at a time, each queue's jobs by
// priority then submission. Each job gets an attempt (its queues' limits, a
// node-level placement, a split, an eviction: PassSession::attempt); one that
// does not start may get a backfill reservation. A strict-FIFO queue stops at
// its first job that cannot start, a best-effort queue skips it.
//
// A queue whose every remaining job would only fail again is left early
// (skipping what cannot start, hub/pending_shapes.hpp): the stage counts, per
// queue and per shape class, the jobs its cursor has not passed yet.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/job.hpp"
#include "hub/pending_shapes.hpp"
#include "hub/queue_order.hpp"
#include "hub/queue_tree.hpp"

namespace gantry::hub {

class PassSession;

// Keeps its state from pass to pass (the buffers stay warm); begin() resets it.
class QueueStage {
 public:
  // A new pass over `queues` queues and shape classes numbered below `shape_ids`.
  void begin(std::size_t queues, std::size_t shape_ids);
  // The stage itself.
  void serve(PassSession& session);

  // A job queued during the pass (a victim sent back) is counted among the
  // jobs its queue's cursor has not passed; `new_class`: its class was made
  // by it (or reuses an emptied class's id) and starts with no pass state.
  void note_enqueued(const Job& job, const PendingKey& key, std::size_t shape_ids, bool new_class);
  // The leaf's allocation changed (an eviction, a shrink): its share and its
  // ancestors' are refreshed, and it moves among its siblings.
  void reposition(QueueTree& tree, QueueIndex leaf) { order_.reposition(tree, leaf); }

 private:
  void activate(PassSession& session);
  bool reserve_blocked(PassSession& session, JobId id);
  void note_passed(QueueIndex leaf, ShapeClassId shape);
  void fit_shapes(std::size_t shape_ids);
  bool rest_cannot_start(PassSession& session, QueueIndex leaf);
  void note_skipped_reasons(PassSession& session, QueueIndex leaf);
  bool shape_cannot_start(PassSession& session, ShapeClassId shape);

  QueueOrder order_;  // which leaf is served next
  // Per queue: its individual jobs the cursor has not passed. Per shape
  // class: its jobs the cursor has not passed.
  std::vector<std::uint32_t> individual_left_;
  std::vector<std::uint32_t> shape_left_;
  // How many blocked jobs of the queue order (not past their SLA) were tried
  // for a backfill reservation (the reservations: backfill.hpp).
  std::uint32_t blocked_tries_ = 0;
};

}  // namespace gantry::hub
