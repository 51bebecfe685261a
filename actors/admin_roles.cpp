#include "actors/admin_roles.hpp"

#include <string_view>
#include <type_traits>

namespace gantry::actors {

namespace {

template <class T, class Body>
constexpr bool is = std::is_same_v<std::decay_t<Body>, T>;

// A cluster is named like a Kubernetes object (and a Karmada Cluster): a
// DNS-1123 label.
constexpr std::size_t kMaxClusterName = 63;

bool is_dns1123_label(std::string_view name) {
  if (name.empty() || name.size() > kMaxClusterName) return false;
  const auto alphanumeric = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alphanumeric(name.front()) || !alphanumeric(name.back())) return false;
  for (char c : name)
    if (!alphanumeric(c) && c != '-') return false;
  return true;
}

std::string hello_refusal(const Principal& who, const protocol::Hello& hello) {
  if (!is_dns1123_label(hello.cluster)) {
    const std::string shown = hello.cluster.size() > kMaxClusterName
                                  ? hello.cluster.substr(0, kMaxClusterName) + "..."
                                  : hello.cluster;
    return "Hello.cluster: \"" + shown + "\" (" + std::to_string(hello.cluster.size()) +
           " bytes) is not a DNS-1123 label of at most " + std::to_string(kMaxClusterName) +
           " characters";
  }
  if (!who.may_speak_for(hello.cluster))
    return "key \"" + who.name + "\" may not speak for cluster \"" + hello.cluster + "\"";
  return "";
}

}  // namespace

Role role_needed(const InboundBody& body) {
  return std::visit(
      [](const auto& message) {
        using Message = std::decay_t<decltype(message)>;
        // The web view shows what get and describe answer: a viewer's view.
        if constexpr (is<protocol::ListRequest, Message> ||
                      is<protocol::DescribeRequest, Message> ||
                      is<protocol::WebLoginRequest, Message>)
          return Role::kViewer;
        else if constexpr (is<protocol::SubmitJobRequest, Message> ||
                           is<protocol::SubmitJobsRequest, Message> ||
                           is<protocol::CancelRequest, Message> ||
                           is<protocol::LogsRequest, Message>)  // what a job prints is its owner's
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
    const auto* hello = std::get_if<protocol::Hello>(&body);
    return hello == nullptr ? "" : hello_refusal(who, *hello);
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
        if constexpr (is<protocol::SubmitJobRequest, Message> ||
                      is<protocol::SubmitJobsRequest, Message>)
          return AuditedAction{"submit", "job", ""};
        else if constexpr (is<protocol::CancelRequest, Message>)
          return AuditedAction{"cancel", message.kind, message.name};
        else if constexpr (is<protocol::DeleteRequest, Message>)
          return AuditedAction{"delete", message.kind, message.name};
        else if constexpr (is<protocol::ApplyRequest, Message>)
          return AuditedAction{"apply", "", ""};
        else if constexpr (is<protocol::ClusterActionRequest, Message>)
          return AuditedAction{message.action, "cluster", message.name};
        else if constexpr (is<protocol::WebLoginRequest, Message>)  // a door opened: recorded
          return AuditedAction{"ticket", "web", ""};
        else
          return std::nullopt;
      },
      body);
}

}  // namespace gantry::actors
