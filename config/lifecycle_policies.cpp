#include "config/lifecycle_policies.hpp"

#include <set>

#include "config/yaml_fields.hpp"
#include "hub/duration.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

namespace event = protocol::policy_event;
namespace action = protocol::policy_action;

const std::set<std::string> kPolicyFields{"event", "events", "action", "exitCode", "timeout"};
const std::set<std::string> kEvents{event::kPodFailed,     event::kPodEvicted, event::kPodPending,
                                    event::kTaskCompleted, event::kTaskFailed, event::kJobUnknown,
                                    event::kAny};
const std::set<std::string> kActions{action::kRestartJob, action::kRestartTask, action::kRestartPod,
                                     action::kAbortJob,   action::kCompleteJob, action::kTerminateJob};

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::vector<std::string> read_events(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> events;
  const std::string single = optional_string(node, "event", field);
  if (!single.empty()) events.push_back(single);
  const std::vector<std::string> many = string_list(node["events"], field + ".events");
  if (!single.empty() && !many.empty())
    throw FieldError(field + ".events", many.front(), "give either event or events, not both");
  events.insert(events.end(), many.begin(), many.end());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::string item = many.empty() ? field + ".event" : field + ".events[" + std::to_string(i) + "]";
    if (!kEvents.count(events[i])) throw FieldError(item, events[i], "unknown event; one of " + joined(kEvents));
  }
  return events;
}

protocol::LifecyclePolicy read_policy(const YAML::Node& node, const std::string& field) {
  require_map(node, field);
  reject_unknown(node, kPolicyFields, field);
  protocol::LifecyclePolicy policy;
  policy.events = read_events(node, field);
  const bool has_exit_code = node["exitCode"] && !node["exitCode"].IsNull();
  if (has_exit_code) {
    if (!policy.events.empty())
      throw FieldError(field + ".exitCode", scalar_text(node["exitCode"], field + ".exitCode"),
                       "must not be given together with event or events");
    policy.exit_code = optional_int(node, "exitCode", field, 0);
    if (policy.exit_code == 0) throw FieldError(field + ".exitCode", "0", "0 is not a valid exit code for a policy");
  } else if (policy.events.empty()) {
    throw FieldError(field, "", "give event, events or exitCode");
  }
  policy.action = optional_string(node, "action", field);
  if (!kActions.count(policy.action))
    throw FieldError(field + ".action", policy.action, "unknown action; one of " + joined(kActions));
  const std::string timeout = optional_string(node, "timeout", field);
  if (!timeout.empty()) {
    try {
      policy.timeout_ms = hub::parse_duration_ms(timeout);
    } catch (const std::invalid_argument&) {
      throw FieldError(field + ".timeout", timeout, "must be a duration such as 90s, 10m or 1h");
    }
  }
  return policy;
}

}  // namespace

std::vector<protocol::LifecyclePolicy> read_lifecycle_policies(const YAML::Node& node,
                                                               const std::string& field) {
  std::vector<protocol::LifecyclePolicy> policies;
  if (!node || node.IsNull()) return policies;
  require_sequence(node, field);
  std::set<std::string> events_seen;
  std::set<std::int32_t> exit_codes_seen;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    protocol::LifecyclePolicy policy = read_policy(node[i], item);
    for (const std::string& name : policy.events) {
      if (!events_seen.insert(name).second)
        throw FieldError(item + ".event", name, "event given twice in " + field);
    }
    if (policy.events.empty() && !exit_codes_seen.insert(policy.exit_code).second)
      throw FieldError(item + ".exitCode", std::to_string(policy.exit_code), "exit code given twice in " + field);
    policies.push_back(std::move(policy));
  }
  if (events_seen.count(event::kAny) && events_seen.size() > 1)
    throw FieldError(field, event::kAny, "an event \"*\" policy must be the only event policy");
  return policies;
}

}  // namespace gantry::config
