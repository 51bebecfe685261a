#include "actors/zap_gate.hpp"

namespace gantry::actors {

namespace {

bool allowed_on(const Principal& principal, std::string_view domain) {
  if (domain == kAgentsZapDomain) return !principal.clusters.empty();
  if (domain == kAdminZapDomain) return principal.role != Role::kNone;
  return false;
}

}  // namespace

support::ZapVerdict decide_zap(const support::ZapRequest& request, const AccessList& access) {
  if (request.mechanism != "CURVE") return {false, "", "CURVE required"};
  const Principal* principal = access.by_key(request.curve_public_key);
  if (principal == nullptr) return {false, "", "key not allowed"};
  if (!allowed_on(*principal, request.domain)) return {false, "", "key not allowed on this socket"};
  return {true, principal->name, ""};
}

}  // namespace gantry::actors
