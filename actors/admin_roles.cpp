#include "actors/admin_roles.hpp"

#include <type_traits>

namespace gantry::actors {

namespace {

template <class T, class Body>
constexpr bool is = std::is_same_v<std::decay_t<Body>, T>;

}  // namespace

Role role_needed(const InboundBody& body) {
  return std::visit(
      [](const auto& message) {
        using Message = std::decay_t<decltype(message)>;
        if constexpr (is<protocol::ListRequest, Message> || is<protocol::DescribeRequest, Message>)
          return Role::kViewer;
        else if constexpr (is<protocol::SubmitJobRequest, Message> ||
                           is<protocol::CancelRequest, Message>)
          return Role::kOperator;
        else if constexpr (is<protocol::DeleteRequest, Message>)
          return message.kind == "job" ? Role::kOperator : Role::kAdmin;
        else
          return Role::kAdmin;
      },
      body);
}

std::string refusal(Channel channel, const Principal& who, const InboundBody& body) {
  if (channel == Channel::kAgents) {
    if (const auto* hello = std::get_if<protocol::Hello>(&body);
        hello != nullptr && !who.may_speak_for(hello->cluster)) {
      return "key \"" + who.name + "\" may not speak for cluster \"" + hello->cluster + "\"";
    }
    return "";
  }
  const Role needed = role_needed(body);
  if (who.role >= needed) return "";
  const std::optional<AuditedAction> action = audited_action(body);
  const std::string what = action ? action->action + " " + action->kind : "read";
  return "key \"" + who.name + "\" (" + std::string(role_name(who.role)) + ") may not " + what +
         ": needs role " + std::string(role_name(needed));
}

std::optional<AuditedAction> audited_action(const InboundBody& body) {
  return std::visit(
      [](const auto& message) -> std::optional<AuditedAction> {
        using Message = std::decay_t<decltype(message)>;
        if constexpr (is<protocol::SubmitJobRequest, Message>)
          return AuditedAction{"submit", "job", ""};
        else if constexpr (is<protocol::CancelRequest, Message>)
          return AuditedAction{"cancel", message.kind, message.name};
        else if constexpr (is<protocol::DeleteRequest, Message>)
          return AuditedAction{"delete", message.kind, message.name};
        else if constexpr (is<protocol::ApplyRequest, Message>)
          return AuditedAction{"apply", "", ""};
        else if constexpr (is<protocol::ClusterActionRequest, Message>)
          return AuditedAction{message.action, "cluster", message.name};
        else
          return std::nullopt;
      },
      body);
}

}  // namespace gantry::actors
