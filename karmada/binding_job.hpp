// A Karmada ResourceBinding (work.karmada.io/v1alpha2) as a Gantry job: its
// identity, the API path of the workload it binds, and the Volcano Job
// document Gantry's own parser accepts.
#pragma once

#include <compare>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "protocol/messages.hpp"

namespace gantry::karmada {

struct BindingKey {
  std::string namespace_;
  std::string name;
  auto operator<=>(const BindingKey&) const = default;
};

// metadata.namespace / metadata.name (both required).
BindingKey binding_key(const nlohmann::json& binding);

// "<namespace>.<name>": unique per binding and a DNS-1123 name for Gantry
// (namespaces are DNS-1123 labels, binding names DNS-1123 subdomains).
std::string job_name(const BindingKey& key);

// On the Gantry job: "<namespace>/<name>" of the binding it stands for.
inline constexpr const char* kBindingAnnotation = "gantry.io/karmada-binding";
// Label on every Karmada member cluster Gantry sees; value kSourceValue.
inline constexpr const char* kSourceLabel = protocol::kSourceLabel;
inline constexpr const char* kSourceValue = protocol::kKarmadaSource;

// Volcano Job plugins that give every pod the job's whole world (pytorch's
// MASTER_ADDR/WORLD_SIZE, tensorflow's TF_CONFIG, mpi's hostfile, ray's head
// address) from the job's own tasks: a member's Volcano would give each part
// of a split a world of its own share (a part without the head would have its
// workers join a head that is not there), and Karmada mode offers no
// cross-cluster rendezvous.
inline constexpr const char* kWholeWorldPlugins[] = {"pytorch", "tensorflow", "mpi", "ray"};
// On the Gantry job of a workload that asked to be split but cannot be
// (shown by `gantryctl describe job`): the reason, split_refusal().
inline constexpr const char* kSplitRefusedAnnotation = "gantry.io/split-refused";

// Why a workload cannot be split safely: "not split: Volcano's pytorch plugin
// needs every replica in one cluster"; nullopt when it can (any workload not
// a Volcano Job: Karmada's ReviseReplica divides those).
std::optional<std::string> split_refusal(const nlohmann::json& workload);
// split_refusal() of a workload whose split was wanted (a Divided placement
// the workload does not override, or its own gantry.io/split: allowed).
std::optional<std::string> refused_split(const nlohmann::json& binding,
                                         const nlohmann::json* workload);

// The workload's API path from binding.spec.resource. Rule: apiVersion "v1"
// (core group) -> "/api/v1", any other "group/version" -> "/apis/group/version";
// then "/namespaces/NS" when the resource is namespaced; then the plural,
// taken as lowercase kind + "s" (right for Job, Deployment, StatefulSet, Pod,
// ReplicaSet, DaemonSet; wrong for kinds like NetworkPolicy, which Gantry does
// not schedule); then "/NAME".
std::string workload_path(const nlohmann::json& binding);

// The Volcano Job document (JSON text, which is YAML) for the binding and its
// workload (nullptr when the workload could not be read), accepted by
// config::parse_volcano_job:
//  - metadata.name = job_name(); annotations: kBindingAnnotation "ns/name",
//    gantry.io/cluster-selector "gantry.io/source=karmada" plus the workload's
//    own selector terms, every other gantry.io/* annotation of the workload,
//    and gantry.io/split "allowed" for a Divided placement unless the
//    workload says otherwise, but "never" whatever either says when
//    split_refusal() has a reason (then kSplitRefusedAnnotation shows it
//    when a split was wanted); a Volcano Job's metadata.labels. Nothing else of
//    the workload's metadata (uid, managedFields, ...) and no status.
//  - queue: a Volcano Job's spec.queue, else the workload's annotation
//    scheduling.volcano.sh/queue-name, else "default".
//  - priorityClassName: the Volcano Job's, else replicaRequirements', when
//    Gantry knows the class (config::default_priority_classes()), else the
//    known class ranked by spec.schedulePriority.priority, else none.
//  - a Volcano Job: the rest of its spec as submitted (tasks with their whole
//    pod templates, minAvailable, minSuccess, maxRetry, policies, plugins,
//    ttlSecondsAfterFinished, ...), so the job is the one `gantryctl submit`
//    makes of the same manifest. Any other workload: one task "main" of
//    spec.replicas (at least 1) replicas, one container "main" requesting
//    replicaRequirements.resourceRequest, with
//    replicaRequirements.nodeClaim.nodeSelector; all replicas are one gang.
// A document config::parse_volcano_job refuses throws its hub::FieldError,
// which names the workload's field (spec.tasks[1].replicas) or the binding's.
std::string job_document(const nlohmann::json& binding, const nlohmann::json* workload);

}  // namespace gantry::karmada
