#include "agents/sim_executor.hpp"

#include <charconv>
#include <cmath>
#include <csignal>

#include "hub/field_error.hpp"

namespace gantry::agents {

namespace {

// A week: anything longer is a typo in a simulation.
constexpr double kMaxSimSeconds = 7 * 24 * 3600;

const std::string* annotation(const protocol::JobSpec& job, const char* key) {
  const auto found = job.annotations.find(key);
  return found == job.annotations.end() ? nullptr : &found->second;
}

std::string annotation_field(const char* key) {
  return std::string("metadata.annotations[") + key + "]";
}

TimeMs parse_duration_ms(const std::string& text) {
  double seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(seconds) || seconds < 0 || seconds > kMaxSimSeconds) {
    throw hub::FieldError(annotation_field(kSimDurationAnnotation), text,
                          "must be seconds from 0 to 604800, decimals allowed");
  }
  return static_cast<TimeMs>(std::llround(seconds * 1000.0));
}

int parse_exit_code(const std::string& text) {
  int code = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), code);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || code < 0 ||
      code > 255) {
    throw hub::FieldError(annotation_field(kSimExitCodeAnnotation), text,
                          "must be a whole number from 0 to 255");
  }
  return code;
}

}  // namespace

SimBehaviour sim_behaviour(const protocol::JobSpec& job) {
  SimBehaviour behaviour;
  if (const std::string* text = annotation(job, kSimDurationAnnotation)) {
    behaviour.duration_ms = parse_duration_ms(*text);
  }
  if (const std::string* text = annotation(job, kSimExitCodeAnnotation)) {
    behaviour.exit_code = parse_exit_code(*text);
  }
  return behaviour;
}

std::string SimExecutor::check(const protocol::JobSpec& job) const {
  try {
    sim_behaviour(job);
    return "";
  } catch (const hub::FieldError& e) {
    return e.what();
  }
}

void SimExecutor::start(const ReplicaLaunch& launch, TimeMs now) {
  const SimBehaviour behaviour = sim_behaviour(*launch.job);
  const TimeMs ends_at = now + behaviour.duration_ms;
  running_[launch.key] = Running{ends_at, behaviour.exit_code};
  endings_.push(Ending{ends_at, launch.key});
}

void SimExecutor::kill(const ReplicaKey& key) {
  if (running_.erase(key) == 0) return;
  killed_.push_back(ReplicaExit{key, 128 + SIGKILL, SIGKILL});
}

std::optional<TimeMs> SimExecutor::next_deadline() const {
  // A kill is reported at once: any time is already due.
  if (!killed_.empty()) return std::numeric_limits<TimeMs>::min();
  if (endings_.empty()) return std::nullopt;
  return endings_.top().at;
}

void SimExecutor::collect_exits(TimeMs now, std::vector<ReplicaExit>& out) {
  out.insert(out.end(), killed_.begin(), killed_.end());
  killed_.clear();
  while (!endings_.empty() && endings_.top().at <= now) {
    const Ending ending = endings_.top();
    endings_.pop();
    const auto found = running_.find(ending.key);
    if (found == running_.end() || found->second.ends_at != ending.at) continue;
    out.push_back(ReplicaExit{ending.key, found->second.exit_code, 0});
    running_.erase(found);
  }
}

void SimExecutor::shutdown() {
  running_.clear();
  killed_.clear();
  endings_ = {};
}

}  // namespace gantry::agents
