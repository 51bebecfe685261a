#include "karmada/gateway_core.hpp"

#include <algorithm>

#include "hub/job_request.hpp"
#include "karmada/scheduled_bindings.hpp"
#include "karmada/split_override.hpp"
#include "karmada/workload_status.hpp"

namespace gantry::karmada {

namespace {

// Final statuses a Hello repeats per cluster, as an agent keeps its last 4,096.
constexpr std::size_t kEndedKept = 1024;

std::string cluster_name(const nlohmann::json& cluster) {
  return cluster.value("metadata", nlohmann::json::object()).value("name", "");
}

bool same_tasks(const std::vector<protocol::TaskStatus>& a,
                const std::vector<protocol::TaskStatus>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.pending == y.pending && x.running == y.running &&
           x.succeeded == y.succeeded && x.failed == y.failed;
  });
}

std::string key_text(const BindingKey& key) {
  return key.namespace_ + "/" + key.name;
}

// A list is the whole state: each item is upserted, and what is known but
// no longer listed was deleted while the watch was away.
template <class Known, class KeyOf, class Upsert, class Remove>
void apply_list(const Known& known, const std::vector<nlohmann::json>& items, KeyOf key_of,
                Upsert upsert, Remove remove) {
  std::set<typename Known::key_type> listed;
  for (const nlohmann::json& item : items) {
    listed.insert(key_of(item));
    upsert(item);
  }
  std::vector<typename Known::key_type> gone;
  for (const auto& [key, value] : known)
    if (!listed.count(key)) gone.push_back(key);
  for (const auto& key : gone) remove(key);
}

// What each replica of a part asks for (the Prepare's tasks, in its order).
std::vector<protocol::ResourceList> replica_requests(
    const protocol::JobSpec& spec, const std::map<std::string, std::int32_t>& task_replicas) {
  std::vector<protocol::ResourceList> requests;
  for (const protocol::TaskSpec& task : spec.tasks) {
    const auto count = task_replicas.find(task.name);
    if (count == task_replicas.end()) continue;
    const protocol::ResourceList request = hub::replica_request(task, "spec.tasks").to_list();
    for (std::int32_t i = 0; i < count->second; ++i) requests.push_back(request);
  }
  return requests;
}

std::int64_t amount_of(const protocol::ResourceList& list, const std::string& name) {
  const auto found = list.find(name);
  return found == list.end() ? 0 : found->second;
}

bool has_room(const protocol::NodeUsage& node, const protocol::ResourceList& request) {
  return std::all_of(request.begin(), request.end(), [&](const auto& entry) {
    const auto& [name, milli] = entry;
    return milli <= 0 ||
           amount_of(node.allocatable, name) - amount_of(node.allocated, name) >= milli;
  });
}

// Counts the replica on the first node with room for it; false when none has.
bool take_room(std::vector<protocol::NodeUsage>& nodes, const protocol::ResourceList& replica) {
  for (protocol::NodeUsage& node : nodes) {
    if (!has_room(node, replica)) continue;
    for (const auto& [name, milli] : replica) node.allocated[name] += milli;
    return true;
  }
  return false;
}

bool is_summary_node(const std::vector<protocol::NodeUsage>& nodes) {
  static const std::string suffix = "/summary";
  return nodes.size() == 1 && nodes.front().name.ends_with(suffix);
}

// A replica whose pods may still hold room on the member. On the summary
// node its request is added to allocated, capped at allocatable: a summary
// with less free room than that already counts (some of) the pods. On graded
// nodes it takes the first node (lowest grade first) with room for it: the
// real pods sit on one node, so the honest guess is a node that could hold
// them; when none could, Karmada's models already count them and nothing is
// taken.
void count_terminating(std::vector<protocol::NodeUsage>& nodes,
                       const protocol::ResourceList& replica) {
  if (!is_summary_node(nodes)) {
    take_room(nodes, replica);
    return;
  }
  protocol::NodeUsage& node = nodes.front();
  for (const auto& [name, milli] : replica) {
    const std::int64_t cap = amount_of(node.allocatable, name);
    node.allocated[name] = std::min(cap, amount_of(node.allocated, name) + milli);
  }
}

// Karmada shows the binding's workload on the cluster while it lists the
// cluster or keeps an aggregatedStatus item for it (it drops the item once
// the member workload and its pods are gone).
bool workload_shown(const nlohmann::json& binding, const std::string& cluster) {
  const auto names = [&](const char* object, const char* list, const char* field) {
    const nlohmann::json part = binding.value(object, nlohmann::json::object());
    const nlohmann::json items = part.value(list, nlohmann::json::array());
    return items.is_array() && std::any_of(items.begin(), items.end(), [&](const auto& item) {
             return item.is_object() && item.value(field, "") == cluster;
           });
  };
  return names("spec", "clusters", "name") || names("status", "aggregatedStatus", "clusterName");
}

}  // namespace

bool scheduled_by_gantry(const nlohmann::json& binding) {
  // A kind Gantry does not schedule is never its, whatever suspended it: the
  // gateway would read a workload its RBAC does not grant, and hold a binding
  // that Karmada's scheduler should place.
  if (!is_scheduled_kind(binding)) return false;
  const nlohmann::json spec = binding.value("spec", nlohmann::json::object());
  if (spec.value("schedulerName", "") == kSchedulerName) return true;
  if (is_suspended(binding)) return true;
  return released_decision(binding).has_value();
}

// ------------------------------------------------------------------ clusters

void GatewayCore::on_clusters_listed(const std::vector<nlohmann::json>& clusters,
                                     GatewayOutbox& out) {
  apply_list(
      clusters_, clusters, cluster_name,
      [&](const nlohmann::json& cluster) { upsert_cluster(cluster, out); },
      [&](const std::string& name) { remove_cluster(name, out); });
}

void GatewayCore::on_cluster_event(const std::string& type, const nlohmann::json& cluster,
                                   GatewayOutbox& out) {
  if (type == "DELETED") {
    remove_cluster(cluster_name(cluster), out);
  } else {
    upsert_cluster(cluster, out);
  }
}

void GatewayCore::upsert_cluster(const nlohmann::json& cluster, GatewayOutbox& out) {
  ClusterView view;
  try {
    view = cluster_view(cluster);
  } catch (const std::exception& bad) {
    out.log.push_back("Karmada cluster " + cluster_name(cluster) + " ignored: " + bad.what());
    return;
  }
  const std::string name = view.name;
  const auto found = clusters_.find(name);
  if (found == clusters_.end()) {
    clusters_.emplace(name, std::move(view));
    out.clusters_added.push_back(name);
    return;
  }
  const bool changed = found->second.ready != view.ready ||
                       found->second.fit_note != view.fit_note ||
                       found->second.nodes.size() != view.nodes.size() ||
                       !std::equal(found->second.nodes.begin(), found->second.nodes.end(),
                                   view.nodes.begin(), [](const auto& a, const auto& b) {
                                     return a.name == b.name && a.allocatable == b.allocatable &&
                                            a.allocated == b.allocated && a.labels == b.labels;
                                   });
  found->second = std::move(view);
  if (changed) out.usage_changed.insert(name);
}

void GatewayCore::remove_cluster(const std::string& name, GatewayOutbox& out) {
  if (clusters_.erase(name) == 0) return;
  out.clusters_removed.push_back(name);
  out.usage_changed.erase(name);
}

const ClusterView* GatewayCore::find_cluster(const std::string& name) const {
  const auto found = clusters_.find(name);
  return found == clusters_.end() ? nullptr : &found->second;
}

std::vector<std::string> GatewayCore::cluster_names() const {
  std::vector<std::string> names;
  for (const auto& [name, view] : clusters_) names.push_back(name);
  return names;
}

// ------------------------------------------------------------------ bindings

// Oldest first: a list comes sorted by name, but each binding's job takes
// its place in its queue when it is submitted.
void GatewayCore::on_bindings_listed(const std::vector<nlohmann::json>& bindings,
                                     GatewayOutbox& out) {
  std::vector<const nlohmann::json*> by_age;
  for (const nlohmann::json& binding : bindings) by_age.push_back(&binding);
  const auto created = [](const nlohmann::json* binding) {
    return binding->value("metadata", nlohmann::json::object()).value("creationTimestamp", "");
  };
  std::stable_sort(by_age.begin(), by_age.end(),
                   [&](const auto* a, const auto* b) { return created(a) < created(b); });
  std::vector<nlohmann::json> ordered;
  ordered.reserve(by_age.size());
  for (const nlohmann::json* binding : by_age) ordered.push_back(*binding);
  apply_list(
      bindings_, ordered, binding_key,
      [&](const nlohmann::json& binding) { upsert_binding(binding, out); },
      [&](const BindingKey& key) { remove_binding(key, out); });
}

void GatewayCore::on_binding_event(const std::string& type, const nlohmann::json& binding,
                                   GatewayOutbox& out) {
  if (type == "DELETED") {
    remove_binding(binding_key(binding), out);
  } else {
    upsert_binding(binding, out);
  }
}

void GatewayCore::upsert_binding(const nlohmann::json& object, GatewayOutbox& out) {
  if (!scheduled_by_gantry(object)) return;
  const BindingKey key = binding_key(object);
  Binding& binding = bindings_[key];
  binding.object = object;
  drop_gone_holds(key, &binding.object, out);
  if (!binding.submitted) {
    // Every binding is submitted once per gateway life; the hub refuses a name
    // it already holds, so a restart or a re-list submits nothing twice.
    binding.submitted = true;
    out.submit.push_back(key);
  }
  if (!binding.dispatch) {
    std::optional<Decision> decision;
    try {
      decision = released_decision(object);
    } catch (const std::exception& bad) {
      out.log.push_back("binding " + key_text(key) + ": " + bad.what());
    }
    if (decision) adopt_released(binding, key, *decision);
  }
  sync_status(binding, out);
}

// A binding Gantry released before this gateway started (a hub restart): its
// dispatch is listed in the Hello, so the restarted hub takes it back.
void GatewayCore::adopt_released(Binding& binding, const BindingKey& key,
                                 const Decision& decision) {
  GatewayDispatch dispatch;
  dispatch.job = decision.job;
  dispatch.binding = key;
  dispatch.parts_expected = static_cast<std::int32_t>(decision.parts.size());
  dispatch.released = true;
  for (std::size_t i = 0; i < decision.parts.size(); ++i) {
    Part part;
    part.cluster = decision.parts[i].cluster;
    part.task_replicas = decision.parts[i].task_replicas;
    part.committed = true;
    dispatch.parts.emplace(static_cast<std::int32_t>(i), std::move(part));
  }
  dispatches_[decision.dispatch_id] = std::move(dispatch);
  binding.dispatch = decision.dispatch_id;
}

void GatewayCore::remove_binding(const BindingKey& key, GatewayOutbox& out) {
  const auto found = bindings_.find(key);
  if (found == bindings_.end()) return;
  out.cancel_jobs.push_back(job_name(key));
  out.log.push_back("binding " + key_text(key) + " deleted in Karmada: its job is cancelled");
  bindings_.erase(found);
  drop_gone_holds(key, nullptr, out);
}

// Each committed part of the binding's released dispatch reports what
// Karmada's aggregatedStatus says of its cluster, when that changed.
void GatewayCore::sync_status(const Binding& binding, GatewayOutbox& out) {
  if (!binding.dispatch) return;
  const auto found = dispatches_.find(*binding.dispatch);
  if (found == dispatches_.end() || !found->second.released) return;
  // The binding must carry this dispatch's decision: until the release patch
  // shows, aggregatedStatus is the previous placement's.
  std::optional<Decision> shown;
  try {
    shown = released_decision(binding.object);
  } catch (const std::exception&) {
  }
  if (!shown || shown->dispatch_id != *binding.dispatch) return;
  const DispatchId id = found->first;
  for (auto& [index, part] : found->second.parts) {
    if (!part.committed || part.ended) continue;
    const PartProgress progress = part_progress(binding.object, part.cluster);
    if (apply_refused(id, index, part, progress, out)) continue;
    if (!progress.reported || progress.phase.empty()) continue;
    if (progress.phase == protocol::phase::kCompleted ||
        progress.phase == protocol::phase::kFailed) {
      part.last.tasks = progress.tasks;
      end_part(id, part, progress.phase, progress.message, out);
      continue;
    }
    if (progress.phase == part.last.phase && same_tasks(progress.tasks, part.last.tasks)) continue;
    part.last = protocol::StatusUpdate{id, found->second.job, progress.phase, progress.tasks,
                                       progress.message};
    out.messages.emplace_back(part.cluster, part.last);
  }
  forget_if_over(id);
}

// A member that refuses the workload (Volcano's admission, a quota, an
// invalid override) leaves Karmada retrying the same refusal forever: the
// part ends at once. Only before the first apply: a re-apply failing later
// (a template update) does not stop what already runs.
bool GatewayCore::apply_refused(DispatchId id, std::int32_t index, Part& part,
                                const PartProgress& progress, GatewayOutbox& out) {
  if (part.applied) return false;
  const bool ended = progress.phase == protocol::phase::kCompleted ||
                     progress.phase == protocol::phase::kFailed;
  if (progress.applied || ended) {
    part.applied = true;
    return false;
  }
  part.apply_state = !progress.reported      ? "no status from the member yet"
                     : progress.message.empty() ? "still applying"
                                                : progress.message;
  if (!progress.reported || progress.message.empty()) return false;
  refuse_part(id, index, part, "Karmada could not apply it on " + part.cluster + ": " + progress.message,
              out);
  return true;
}

// As an agent's Reject of a Prepare: the hub requeues the job, backs the
// cluster off for it and cancels the other parts, whose Cancels then find
// the binding already suspended.
void GatewayCore::refuse_part(DispatchId id, std::int32_t index, Part& part, std::string reason,
                              GatewayOutbox& out) {
  GatewayDispatch& dispatch = dispatches_.at(id);
  withdraw_release(id, dispatch, out);
  part.ended = true;
  part.last = protocol::StatusUpdate{id, dispatch.job, protocol::phase::kAborted, part.last.tasks,
                                     reason};
  out.log.push_back("binding " + key_text(dispatch.binding) + ": " + reason +
                    "; refusing the part and suspending the binding");
  out.messages.emplace_back(part.cluster, protocol::Reject{id, dispatch.job, std::move(reason), index});
}

void GatewayCore::on_time(TimeMs now, GatewayOutbox& out) {
  std::vector<DispatchId> touched;
  for (auto& [id, dispatch] : dispatches_) {
    if (!dispatch.released) continue;
    for (auto& [index, part] : dispatch.parts) {
      if (!part.committed || part.ended || part.applied) continue;
      if (part.apply_deadline == 0) {
        part.apply_deadline = now + options_.apply_timeout_ms;
        continue;
      }
      if (now < part.apply_deadline) continue;
      refuse_part(id, index, part,
                  "Karmada did not apply it on " + part.cluster + " within " +
                      std::to_string(options_.apply_timeout_ms) + " ms (" +
                      (part.apply_state.empty() ? "no status from the member yet" : part.apply_state) +
                      ")",
                  out);
      touched.push_back(id);
    }
  }
  for (DispatchId id : touched) forget_if_over(id);
  for (std::size_t i = holds_.size(); i-- > 0;) {
    TerminatingHold& hold = holds_[i];
    if (hold.deadline == 0) {
      hold.deadline = now + options_.termination_grace_ms;
    } else if (now >= hold.deadline) {
      drop_hold(i,
                "still shown after " + std::to_string(options_.termination_grace_ms) +
                    " ms (--karmada-termination-grace-ms)",
                out);
    }
  }
}

TimeMs GatewayCore::next_deadline() const {
  TimeMs next = 0;
  for (const auto& [id, dispatch] : dispatches_) {
    if (!dispatch.released) continue;
    for (const auto& [index, part] : dispatch.parts)
      if (part.apply_deadline != 0 && !part.ended && !part.applied &&
          (next == 0 || part.apply_deadline < next))
        next = part.apply_deadline;
  }
  for (const TerminatingHold& hold : holds_)
    if (hold.deadline != 0 && (next == 0 || hold.deadline < next)) next = hold.deadline;
  return next;
}

// ------------------------------------------------------------------ dispatch

std::optional<BindingKey> GatewayCore::binding_of_job(const protocol::JobSpec& job) const {
  const auto found = job.annotations.find(kBindingAnnotation);
  if (found == job.annotations.end()) return std::nullopt;
  const std::size_t slash = found->second.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return BindingKey{found->second.substr(0, slash), found->second.substr(slash + 1)};
}

void GatewayCore::on_prepare(const std::string& cluster, const protocol::Prepare& prepare,
                             GatewayOutbox& out) {
  if (std::any_of(parked_.begin(), parked_.end(), [&](const ParkedPrepare& parked) {
        return parked.prepare.dispatch_id == prepare.dispatch_id && parked.cluster == cluster;
      }))
    return;  // a repeat: answered once the room is free
  const auto reject = [&](std::string reason) {
    out.messages.emplace_back(cluster, protocol::Reject{prepare.dispatch_id, prepare.job.name,
                                                        std::move(reason), prepare.part});
  };
  const std::optional<BindingKey> key = binding_of_job(prepare.job);
  if (!key) {
    reject("cluster " + cluster + " is a Karmada member: it runs only ResourceBindings (" +
           kBindingAnnotation + ")");
    return;
  }
  const auto binding = bindings_.find(*key);
  if (binding == bindings_.end()) {
    reject("binding " + key_text(*key) + " no longer exists in Karmada");
    return;
  }
  const ClusterView* view = find_cluster(cluster);
  if (view == nullptr || !view->ready) {
    reject("Karmada reports cluster " + cluster + " not ready");
    return;
  }
  if (blocked_by_holds(cluster, prepare)) {
    parked_.push_back(ParkedPrepare{cluster, prepare});
    out.log.push_back("dispatch " + std::to_string(prepare.dispatch_id) + " of " + prepare.job.name +
                      " waits: its room on " + cluster +
                      " is still held by a workload Karmada shows terminating");
    return;
  }
  admit(cluster, *key, prepare, out);
}

// The binding exists and the cluster is ready (on_prepare checked both).
void GatewayCore::admit(const std::string& cluster, const BindingKey& key,
                        const protocol::Prepare& prepare, GatewayOutbox& out) {
  const auto binding = bindings_.find(key);
  GatewayDispatch& dispatch = dispatches_[prepare.dispatch_id];
  dispatch.job = prepare.job.name;
  dispatch.binding = key;
  dispatch.parts_expected = prepare.parts;
  dispatch.spec = prepare.job;
  Part& part = dispatch.parts[prepare.part];
  part.cluster = cluster;
  part.task_replicas = prepare.task_replicas;
  binding->second.dispatch = prepare.dispatch_id;
  out.messages.emplace_back(
      cluster, protocol::Admit{prepare.dispatch_id, prepare.job.name, prepare.part, "", 0});
}

void GatewayCore::on_commit(const std::string& cluster, const protocol::Commit& commit,
                            GatewayOutbox& out) {
  const auto found = dispatches_.find(commit.dispatch_id);
  Part* part = nullptr;
  if (found != dispatches_.end()) {
    const auto held = found->second.parts.find(commit.part);
    if (held != found->second.parts.end() && held->second.cluster == cluster) part = &held->second;
  }
  if (part == nullptr) {
    out.messages.emplace_back(
        cluster,
        protocol::Reject{commit.dispatch_id, commit.job,
                         "dispatch " + std::to_string(commit.dispatch_id) + ": not prepared here",
                         commit.part});
    return;
  }
  if (!part->committed) {
    part->committed = true;
    part->last = protocol::StatusUpdate{
        commit.dispatch_id, commit.job, protocol::phase::kPending, {}, "released to Karmada"};
  }
  // Every Commit is answered with the part's status: the hub resends it until then.
  out.messages.emplace_back(cluster, part->last);
  release_if_all_committed(commit.dispatch_id, found->second, out);
}

// One merge patch writes every part's cluster: Karmada sees the whole
// placement at once, never half a gang.
void GatewayCore::release_if_all_committed(DispatchId id, GatewayDispatch& dispatch,
                                           GatewayOutbox& out) {
  if (dispatch.released) return;
  if (static_cast<std::int32_t>(dispatch.parts.size()) != dispatch.parts_expected) return;
  for (const auto& [index, part] : dispatch.parts)
    if (!part.committed) return;
  Decision decision{id, dispatch.job, {}};
  for (const auto& [index, part] : dispatch.parts) {
    std::int32_t replicas = 0;
    for (const auto& [task, count] : part.task_replicas) replicas += count;
    decision.parts.push_back(DecisionPart{part.cluster, replicas, part.task_replicas});
  }
  dispatch.released = true;
  BindingWrite write;
  try {
    write = release_write(dispatch, decision);
  } catch (const std::exception& bad) {
    on_release_failed(id, "its split cannot be written as an OverridePolicy: " + std::string(bad.what()),
                      out);
    return;
  }
  out.writes.push_back(std::move(write));
  out.log.push_back("binding " + key_text(dispatch.binding) +
                    ": every part committed; releasing it (dispatch " + std::to_string(id) + ")");
}

// Karmada has no ReviseReplica for a Volcano Job: every listed cluster would
// get the whole Job, so a split one goes out with an OverridePolicy that cuts
// each cluster's copy to its part. A Volcano Job released to one cluster
// runs whole there, so a policy an earlier split left must go first.
// Other kinds are divided by Karmada's own ReviseReplica.
BindingWrite GatewayCore::release_write(const GatewayDispatch& dispatch,
                                        const Decision& decision) const {
  BindingWrite write;
  write.key = dispatch.binding;
  write.decision = decision;
  const auto binding = bindings_.find(dispatch.binding);
  if (binding == bindings_.end() || !binds_volcano_job(binding->second.object)) return write;
  if (decision.parts.size() < 2) {
    write.policy = BindingWrite::Policy::kDeletePolicy;
    return write;
  }
  write.policy = BindingWrite::Policy::kWritePolicy;
  write.override_policy = split_override_policy(binding->second.object, dispatch.spec, decision);
  return write;
}

// A suspended split leaves no OverridePolicy behind (deleted after the
// suspension, so Karmada never re-applies the released Job unrevised).
BindingWrite GatewayCore::suspend_write(DispatchId id, const GatewayDispatch& dispatch) const {
  BindingWrite write;
  write.kind = BindingWrite::Kind::kSuspend;
  write.key = dispatch.binding;
  write.decision = Decision{id, dispatch.job, {}};
  const auto binding = bindings_.find(dispatch.binding);
  if (dispatch.parts_expected > 1 && binding != bindings_.end() &&
      binds_volcano_job(binding->second.object))
    write.policy = BindingWrite::Policy::kDeletePolicy;
  return write;
}

// As a member refusing the apply: one part is refused, the hub requeues the
// job and cancels the other parts, which find the binding suspended.
void GatewayCore::on_release_failed(DispatchId id, const std::string& reason, GatewayOutbox& out) {
  const auto found = dispatches_.find(id);
  if (found == dispatches_.end() || !found->second.released) return;
  for (auto& [index, part] : found->second.parts) {
    if (!part.committed || part.ended) continue;
    refuse_part(id, index, part, "Gantry could not release it: " + reason, out);
    break;
  }
  forget_if_over(id);
}

void GatewayCore::on_abort(const std::string& cluster, const protocol::Abort& abort,
                           GatewayOutbox& out) {
  on_cancel(cluster, protocol::Cancel{abort.dispatch_id, abort.job}, out);
}

// A committed part stopped by the hub (eviction, cancel, drain): the binding
// is suspended again and loses its clusters; a prepared part is just dropped.
void GatewayCore::on_cancel(const std::string& cluster, const protocol::Cancel& cancel,
                            GatewayOutbox& out) {
  if (drop_parked(cluster, cancel.dispatch_id, "cancelled by the hub before its admission", out))
    return;
  const auto found = dispatches_.find(cancel.dispatch_id);
  if (found == dispatches_.end()) return;
  GatewayDispatch& dispatch = found->second;
  for (auto it = dispatch.parts.begin(); it != dispatch.parts.end();) {
    Part& part = it->second;
    if (part.cluster != cluster || part.ended) {
      ++it;
      continue;
    }
    if (!part.committed) {
      it = dispatch.parts.erase(it);
      continue;
    }
    withdraw_release(cancel.dispatch_id, dispatch, out);
    end_part(cancel.dispatch_id, part, protocol::phase::kAborted, "binding suspended again", out);
    ++it;
  }
  if (dispatch.parts.empty()) {
    dispatches_.erase(found);
    return;
  }
  forget_if_over(cancel.dispatch_id);
}

void GatewayCore::end_part(DispatchId id, Part& part, std::string phase, std::string message,
                           GatewayOutbox& out) {
  part.ended = true;
  part.last.dispatch_id = id;
  part.last.job = dispatches_.at(id).job;
  part.last.phase = std::move(phase);
  part.last.message = std::move(message);
  out.messages.emplace_back(part.cluster, part.last);
  std::vector<protocol::StatusUpdate>& ended = ended_[part.cluster];
  ended.push_back(part.last);
  if (ended.size() > kEndedKept) ended.erase(ended.begin());
}

void GatewayCore::forget_if_over(DispatchId id) {
  const auto found = dispatches_.find(id);
  if (found == dispatches_.end()) return;
  for (const auto& [index, part] : found->second.parts)
    if (!part.ended) return;
  const auto binding = bindings_.find(found->second.binding);
  if (binding != bindings_.end() && binding->second.dispatch == id)
    binding->second.dispatch.reset();
  dispatches_.erase(found);
}

// ------------------------------------------------------------------ sessions

std::vector<protocol::PlacedReplica> GatewayCore::replicas_of(const Part& part) const {
  // Karmada's member schedulers chose the nodes; the hub needs a node the
  // cluster reports for each replica to take a run back.
  const ClusterView* view = find_cluster(part.cluster);
  const std::string node = view != nullptr && !view->nodes.empty() ? view->nodes.front().name : "";
  std::vector<protocol::PlacedReplica> replicas;
  for (const auto& [task, count] : part.task_replicas)
    for (std::int32_t i = 0; i < count; ++i) replicas.push_back({task, node});
  return replicas;
}

protocol::Hello GatewayCore::hello(const std::string& cluster, const std::string& version) const {
  protocol::Hello hello;
  hello.cluster = cluster;
  if (const ClusterView* view = find_cluster(cluster)) hello.labels = view->labels;
  hello.agent_version = version;
  for (const auto& [id, dispatch] : dispatches_) {
    for (const auto& [index, part] : dispatch.parts) {
      if (part.cluster != cluster || part.ended) continue;
      hello.running.push_back(protocol::RunningDispatch{id, dispatch.job, replicas_of(part), index,
                                                        dispatch.parts_expected, part.committed});
    }
  }
  if (const auto ended = ended_.find(cluster); ended != ended_.end()) hello.ended = ended->second;
  return hello;
}

// A cluster Karmada reports not ready offers no nodes: nothing new is placed
// there, and what runs keeps its place (Karmada decides about failover).
protocol::UsageReport GatewayCore::usage_report(const std::string& cluster) const {
  protocol::UsageReport report;
  report.cluster = cluster;
  const ClusterView* view = find_cluster(cluster);
  if (view == nullptr) return report;
  if (view->ready) report.nodes = nodes_with_holds(*view);
  report.fit_note = view->fit_note;
  return report;
}

// ------------------------------------------------------------------ terminating parts

// The hub frees a part's resources the moment it evicts or cancels it; the
// member's pods still terminate for a while, and Karmada's resource summary
// and models are refreshed only periodically. So the release is withdrawn
// from every committed part, and each part's resources stay counted on its
// cluster until Karmada shows the workload gone there.
void GatewayCore::withdraw_release(DispatchId id, GatewayDispatch& dispatch, GatewayOutbox& out) {
  if (!dispatch.released) return;
  out.writes.push_back(suspend_write(id, dispatch));
  dispatch.released = false;
  for (const auto& [index, part] : dispatch.parts)
    if (part.committed && !part.ended) hold_while_terminating(dispatch, part, out);
}

// A dispatch adopted after a restart has no Prepare to read requests from:
// nothing is held for it (docs/karmada.md, Known limits).
void GatewayCore::hold_while_terminating(const GatewayDispatch& dispatch, const Part& part,
                                         GatewayOutbox& out) {
  TerminatingHold hold{dispatch.binding, part.cluster, {}, 0};
  try {
    hold.replicas = replica_requests(dispatch.spec, part.task_replicas);
  } catch (const std::exception& bad) {
    out.log.push_back("binding " + key_text(dispatch.binding) + ": " + bad.what());
  }
  if (hold.replicas.empty()) return;
  out.log.push_back("binding " + key_text(dispatch.binding) + ": " +
                    std::to_string(hold.replicas.size()) + " replicas stay counted on " +
                    part.cluster + " until Karmada shows its workload gone there");
  out.usage_changed.insert(part.cluster);
  holds_.push_back(std::move(hold));
}

// `binding` null: the binding was deleted, and every hold of it goes.
void GatewayCore::drop_gone_holds(const BindingKey& key, const nlohmann::json* binding,
                                  GatewayOutbox& out) {
  for (std::size_t i = holds_.size(); i-- > 0;) {
    if (!(holds_[i].binding == key)) continue;
    if (binding == nullptr) {
      drop_hold(i, "binding deleted", out);
    } else if (!workload_shown(*binding, holds_[i].cluster)) {
      drop_hold(i, "Karmada shows its workload gone", out);
    }
  }
}

void GatewayCore::drop_hold(std::size_t index, const std::string& why, GatewayOutbox& out) {
  const std::string cluster = holds_[index].cluster;
  out.log.push_back("binding " + key_text(holds_[index].binding) + " on " + cluster +
                    ": its replicas no longer counted (" + why + ")");
  holds_.erase(holds_.begin() + static_cast<std::ptrdiff_t>(index));
  out.usage_changed.insert(cluster);
  answer_parked(cluster, out);
}

std::size_t GatewayCore::terminating_count(const std::string& cluster) const {
  return static_cast<std::size_t>(std::count_if(
      holds_.begin(), holds_.end(), [&](const TerminatingHold& hold) { return hold.cluster == cluster; }));
}

std::vector<protocol::NodeUsage> GatewayCore::nodes_with_holds(const ClusterView& view) const {
  std::vector<protocol::NodeUsage> nodes = view.nodes;
  for (const TerminatingHold& hold : holds_)
    if (hold.cluster == view.name)
      for (const protocol::ResourceList& replica : hold.replicas) count_terminating(nodes, replica);
  return nodes;
}

// The hub fitted the part to its view: the reported nodes less what it holds
// for the parts running here. It may have done so before the report that
// counts the terminating parts reached it, so the part is checked again
// against that same view less the terminating parts; only a cluster with
// terminating parts is checked (the gateway otherwise trusts the hub's fit).
bool GatewayCore::blocked_by_holds(const std::string& cluster,
                                   const protocol::Prepare& prepare) const {
  const ClusterView* view = find_cluster(cluster);
  if (view == nullptr || terminating_count(cluster) == 0) return false;
  std::vector<protocol::NodeUsage> nodes = nodes_with_holds(*view);
  for (const auto& [id, dispatch] : dispatches_)
    for (const auto& [index, part] : dispatch.parts) {
      if (part.cluster != cluster || part.ended || id == prepare.dispatch_id) continue;
      try {
        for (const auto& replica : replica_requests(dispatch.spec, part.task_replicas))
          count_terminating(nodes, replica);
      } catch (const std::exception&) {
      }
    }
  std::vector<protocol::ResourceList> wanted;
  try {
    wanted = replica_requests(prepare.job, prepare.task_replicas);
  } catch (const std::exception&) {
    return false;  // the hub refuses such a job before placing it
  }
  return !std::all_of(wanted.begin(), wanted.end(),
                      [&](const auto& replica) { return take_room(nodes, replica); });
}

// Room was freed on the cluster: each waiting Prepare that fits now is
// answered as if it had just come (the binding may be gone meanwhile).
void GatewayCore::answer_parked(const std::string& cluster, GatewayOutbox& out) {
  std::vector<ParkedPrepare> waiting;
  std::vector<protocol::Prepare> ready;
  for (ParkedPrepare& parked : parked_) {
    if (parked.cluster == cluster && !blocked_by_holds(cluster, parked.prepare)) {
      ready.push_back(std::move(parked.prepare));
    } else {
      waiting.push_back(std::move(parked));
    }
  }
  parked_ = std::move(waiting);
  for (const protocol::Prepare& prepare : ready) on_prepare(cluster, prepare, out);
}

// An Abort or Cancel of a waiting Prepare: it is refused, and holds nothing.
bool GatewayCore::drop_parked(const std::string& cluster, DispatchId id, const std::string& why,
                              GatewayOutbox& out) {
  const auto found = std::find_if(parked_.begin(), parked_.end(), [&](const ParkedPrepare& parked) {
    return parked.cluster == cluster && parked.prepare.dispatch_id == id;
  });
  if (found == parked_.end()) return false;
  const protocol::Prepare prepare = std::move(found->prepare);
  parked_.erase(found);
  out.messages.emplace_back(cluster, protocol::Reject{id, prepare.job.name, why, prepare.part});
  return true;
}

}  // namespace gantry::karmada
