// What each admin role may ask of the hub (docs/security.md, "Roles"), and
// how a request reads in the audit log. Per message only: whether an
// operator's job is its own, or its queue one of its queues, is checked by
// the actor that knows the job.
#pragma once

#include <optional>
#include <string>

#include "actors/access_list.hpp"
#include "actors/inbound.hpp"

namespace gantry::actors {

// The least role that may send `body`.
Role role_needed(const InboundBody& body);

// "" when `who` may send `body` on `channel`; else why not, for the
// ErrorReply (code "forbidden").
std::string refusal(Channel channel, const Principal& who, const InboundBody& body);

// A request as the audit log records it. Reads (get, describe) are not
// actions and are not recorded; a web login ticket is ("ticket web"), and
// the hub records its use ("login web") when a browser redeems it.
struct AuditedAction {
  std::string action;  // "submit", "cancel", "apply", "delete", "cordon", ...
  std::string kind;    // "job", "queue", "cluster", ... ("" when only the answer says)
  std::string name;
};
std::optional<AuditedAction> audited_action(const InboundBody& body);

}  // namespace gantry::actors
