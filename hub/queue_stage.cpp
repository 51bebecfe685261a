// The queue stage: see queue_stage.hpp.
#include "hub/queue_stage.hpp"

#include <iterator>

#include "hub/backfill.hpp"
#include "hub/pass_session.hpp"

namespace gantry::hub {

void QueueStage::begin(std::size_t queues, std::size_t shape_ids) {
  order_.begin(queues);
  individual_left_.assign(queues, 0);
  shape_left_.assign(shape_ids, 0);
  blocked_tries_ = 0;
}

void QueueStage::serve(PassSession& session) {
  QueueTree& queues = session.queues();
  activate(session);
  while (!order_.done()) {
    const QueueIndex leaf = order_.next(queues);
    const QueueNode& queue = queues.node(leaf);
    QueueOrder::Cursor& cursor = order_.cursor(leaf);
    const JobId id = cursor->job;
    const ShapeClassId shape = session.job(id).shape_class;
    session.note_visited(id);
    auto next = std::next(cursor);
    if (session.attempt(id, cursor)) {  // the job left pending_jobs: its iterator is gone
      cursor = next;
      order_.reposition(queues, leaf);
    } else if (reserve_blocked(session, id)) {
      cursor = next;
    } else if (queue.spec.strategy == QueueStrategy::kStrictFifo) {
      order_.deactivate(queues, leaf);
      continue;
    } else {
      cursor = next;
    }
    note_passed(leaf, shape);
    if (cursor == queue.pending_jobs.end() || rest_cannot_start(session, leaf))
      order_.deactivate(queues, leaf);
  }
}

// Shares are taken after the starving jobs were served: their dispatches count.
void QueueStage::activate(PassSession& session) {
  QueueTree& queues = session.queues();
  const PendingShapes& shapes = session.pending_shapes();
  session.failures().fit_shapes(shapes.id_limit());
  fit_shapes(shapes.id_limit());
  for (QueueIndex q = 0; q < queues.size(); ++q) queues.refresh_share(q);
  for (QueueIndex q = 0; q < queues.size(); ++q) {
    const QueueNode& node = queues.node(q);
    if (node.deleted || !queues.is_leaf(q) || q == kRootQueue || node.pending_jobs.empty())
      continue;
    order_.cursor(q) = node.pending_jobs.begin();
    individual_left_[q] = shapes.individual_pending(q);
    for (ShapeClassId shape : shapes.classes_of(q))
      shape_left_[shape] = shapes.shape(shape).pending;
    order_.activate(queues, q);
  }
}

// The first SchedulerOptions::reservations jobs of the queue order that could
// not start get a reservation when a plan exists, unless only their queue's
// limits stop them (capacity freeing up would not help). Tries count, planned
// or not: a pass where nothing has a time limit costs one try, not one per
// blocked job.
bool QueueStage::reserve_blocked(PassSession& session, JobId id) {
  const Job& job = session.job(id);
  if (blocked_tries_ >= session.options().reservations || session.reserved(id) ||
      job.reason.kind == PendingReason::Kind::kQueueAtCapability ||
      job.reason.kind == PendingReason::Kind::kGuaranteedToOthers)
    return false;
  ++blocked_tries_;
  return session.reserve(id);
}

// ------------------------------------------------------------------ skipping what cannot start

void QueueStage::note_passed(QueueIndex leaf, ShapeClassId shape) {
  if (shape == kIndividualShape) {
    if (individual_left_[leaf] > 0) --individual_left_[leaf];
  } else if (shape < shape_left_.size() && shape_left_[shape] > 0) {
    --shape_left_[shape];
  }
}

void QueueStage::fit_shapes(std::size_t shape_ids) {
  if (shape_left_.size() < shape_ids) shape_left_.resize(shape_ids, 0);
}

// The job counts among those the cursor has not passed if its queue is being
// served and it sorts after the cursor (one the loop then steps over is
// counted too: skipping stays safe).
void QueueStage::note_enqueued(const Job& job, const PendingKey& key, std::size_t shape_ids,
                               bool new_class) {
  const ShapeClassId shape = job.shape_class;
  if (shape != kIndividualShape) {
    fit_shapes(shape_ids);
    if (new_class) shape_left_[shape] = 0;
  }
  const QueueIndex q = job.queue;
  if (!order_.active(q) || !(*order_.cursor(q) < key)) return;
  if (shape == kIndividualShape)
    ++individual_left_[q];
  else
    ++shape_left_[shape];
}

// Every job left behind the queue's cursor would fail in attempt() and change
// nothing but its pending reason: no reservation try is left in the pass, and
// each of their classes is blocked by queue limits, or covered by a failed
// shape with no eviction search allowed. The full pass would visit them only
// to find that; the decisions are the same without (tests/core/
// incremental_pass_test.cpp compares both).
bool QueueStage::rest_cannot_start(PassSession& session, QueueIndex leaf) {
  const SchedulerOptions& options = session.options();
  if (!options.skip_failing_shapes || individual_left_[leaf] > 0 ||
      blocked_tries_ < options.reservations)
    return false;
  for (ShapeClassId shape : session.pending_shapes().classes_of(leaf))
    if (shape_left_[shape] > 0 && !shape_cannot_start(session, shape)) return false;
  note_skipped_reasons(session, leaf);
  return true;
}

// What attempt() would have given each job of the skipped classes.
void QueueStage::note_skipped_reasons(PassSession& session, QueueIndex leaf) {
  const PendingShapes& shapes = session.pending_shapes();
  for (ShapeClassId shape : shapes.classes_of(leaf)) {
    if (shape_left_[shape] == 0) continue;
    const Job& prototype = shapes.shape(shape).prototype;
    std::optional<PendingReason> reason = session.queue_limits_block(prototype);
    if (!reason)
      reason = session.failures().covering(prototype, &session.policy_for(prototype),
                                           end_if_started(prototype, session.now()));
    if (reason) session.note_shape_skipped(shape, *reason);
  }
}

// As attempt() would find for each job of the class.
bool QueueStage::shape_cannot_start(PassSession& session, ShapeClassId shape) {
  const Job& prototype = session.pending_shapes().shape(shape).prototype;
  if (session.queue_limits_block(prototype)) return true;
  FailureMemo& failures = session.failures();
  const bool covered = failures.known_covered(shape) ||
                       failures.covers_shape(shape, prototype, &session.policy_for(prototype),
                                             end_if_started(prototype, session.now()));
  return covered && !session.may_search_evictions(prototype);
}

}  // namespace gantry::hub
