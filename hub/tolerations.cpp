#include "hub/tolerations.hpp"

#include <algorithm>

namespace gantry::hub {

bool tolerates(const protocol::Toleration& toleration, const protocol::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool repels_pods(const protocol::Taint& taint) {
  return taint.effect == kNoSchedule || taint.effect == kNoExecute;
}

const protocol::Taint* first_untolerated(std::span<const protocol::Taint> taints,
                                         std::span<const protocol::Toleration> tolerations) {
  for (const protocol::Taint& taint : taints) {
    if (!repels_pods(taint)) continue;
    const bool tolerated =
        std::any_of(tolerations.begin(), tolerations.end(),
                    [&](const protocol::Toleration& t) { return tolerates(t, taint); });
    if (!tolerated) return &taint;
  }
  return nullptr;
}

std::string taint_text(const protocol::Taint& taint) {
  return taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" + taint.effect;
}

}  // namespace gantry::hub
