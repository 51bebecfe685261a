#include "actors/zap_gate.hpp"

#include <zmq.h>

namespace gantry::actors {

namespace {

constexpr std::size_t kCurveKeyBytes = 32;

std::vector<std::string> reply_frames(const std::string& request_id, std::string_view status,
                                      std::string_view text, std::string_view user_id) {
  return {"1.0", request_id, std::string(status), std::string(text), std::string(user_id), ""};
}

std::string z85_of(const std::string& binary_key) {
  char text[41] = {};
  zmq_z85_encode(text, reinterpret_cast<const std::uint8_t*>(binary_key.data()),
                 binary_key.size());
  return std::string(text, 40);
}

bool allowed_on(const Principal& principal, std::string_view domain) {
  if (domain == kAgentsZapDomain) return !principal.clusters.empty();
  if (domain == kAdminZapDomain) return principal.role != Role::kNone;
  return false;
}

}  // namespace

// Request frames: version, request id, domain, address, routing id,
// mechanism, then the mechanism's credentials (CURVE: the 32-byte key).
ZapVerdict answer_zap(const std::vector<std::string>& request, const AccessList& access) {
  ZapVerdict verdict;
  if (request.size() < 6 || request[0] != "1.0") {
    verdict.reply = reply_frames(request.size() > 1 ? request[1] : "", "500", "bad request", "");
    verdict.why = "malformed ZAP request";
    return verdict;
  }
  const std::string& request_id = request[1];
  const std::string& domain = request[2];
  const std::string& address = request[3];
  const std::string& mechanism = request[5];
  if (mechanism != "CURVE" || request.size() != 7 || request[6].size() != kCurveKeyBytes) {
    verdict.reply = reply_frames(request_id, "400", "CURVE required", "");
    verdict.why = "client at " + address + " did not use CurveZMQ (" + mechanism + ")";
    return verdict;
  }
  const std::string key = z85_of(request[6]);
  const Principal* principal = access.by_key(key);
  if (principal == nullptr) {
    verdict.reply = reply_frames(request_id, "400", "key not allowed", "");
    verdict.why = "client at " + address + " with key " + key + " is not in the access list";
    return verdict;
  }
  verdict.key_name = principal->name;
  if (!allowed_on(*principal, domain)) {
    verdict.reply = reply_frames(request_id, "400", "key not allowed on this socket", "");
    verdict.why = "key \"" + principal->name + "\" (client at " + address +
                  ") is not allowed on the " + domain + " socket";
    return verdict;
  }
  verdict.allowed = true;
  verdict.reply = reply_frames(request_id, "200", "OK", principal->name);
  return verdict;
}

}  // namespace gantry::actors
