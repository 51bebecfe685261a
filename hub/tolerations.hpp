// Node taints and pod tolerations, matched exactly as Kubernetes matches them
// (k8s.io/api/core/v1 toleration.go ToleratesTaint, and kube-scheduler's
// TaintToleration filter): a node with a NoSchedule or NoExecute taint that
// none of a pod's tolerations tolerates never runs that pod, so placement must
// not count it for the pod's task.
#pragma once

#include <span>
#include <string>

#include "protocol/messages.hpp"

namespace gantry::hub {

inline constexpr std::string_view kNoSchedule = "NoSchedule";
inline constexpr std::string_view kPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kNoExecute = "NoExecute";

// Toleration.ToleratesTaint: an empty effect tolerates every effect, else the
// effects must be equal; an empty key tolerates every key, else the keys must
// be equal; operator Exists tolerates any value, Equal (or empty) needs the
// same value. Any other operator tolerates nothing.
bool tolerates(const protocol::Toleration& toleration, const protocol::Taint& taint);

// Whether the taint keeps pods that do not tolerate it off the node:
// NoSchedule and NoExecute do; PreferNoSchedule is only a preference.
bool repels_pods(const protocol::Taint& taint);

// The first of `taints` that repels pods and that no one of `tolerations`
// tolerates; nullptr when a pod with these tolerations may run on the node.
const protocol::Taint* first_untolerated(std::span<const protocol::Taint> taints,
                                         std::span<const protocol::Toleration> tolerations);

// As `kubectl describe node` shows it: "key=value:Effect", "key:Effect" when
// the value is empty.
std::string taint_text(const protocol::Taint& taint);

}  // namespace gantry::hub
