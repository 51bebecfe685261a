#include "agents/lease_elector.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "support/rfc3339.hpp"

namespace gantry::agents {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::system_clock;

constexpr const char* kLeaseApi = "/apis/coordination.k8s.io/v1";
// What client-go's ReleaseOnCancel writes: a candidate that measures expiry
// from when it saw the record change waits one second at most.
constexpr std::int32_t kReleasedLeaseDurationSeconds = 1;

std::string string_field(const json& spec, const char* key) {
  const auto found = spec.find(key);
  if (found == spec.end() || found->is_null()) return "";
  if (!found->is_string()) {
    throw hub::FieldError(std::string("spec.") + key, found->dump(), "must be a string");
  }
  return found->get<std::string>();
}

// An absent or null integer field reads as `absent`.
std::int64_t integer_field(const json& spec, const char* key, std::int64_t absent) {
  const auto found = spec.find(key);
  if (found == spec.end() || found->is_null()) return absent;
  if (!found->is_number_integer()) {
    throw hub::FieldError(std::string("spec.") + key, found->dump(), "must be an integer");
  }
  return found->get<std::int64_t>();
}

std::string resource_version_of(const json& lease) {
  const json metadata = lease.value("metadata", json::object());
  const auto found = metadata.find("resourceVersion");
  return found != metadata.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace

std::string format_micro_time(Clock::time_point time) {
  return support::rfc3339_utc(time, support::SecondFraction::kMicros);
}

Clock::time_point parse_micro_time(const std::string& text, const std::string& field) {
  const std::optional<Clock::time_point> time = support::parse_rfc3339(text);
  if (!time) throw hub::FieldError(field, text, "not an RFC 3339 time");
  return *time;
}

LeaseElector::LeaseElector(kube::Client& client, LeaseOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.namespace_.empty()) throw hub::FieldError("lease namespace", "", "is empty");
  if (options_.name.empty()) throw hub::FieldError("lease name", "", "is empty");
  if (options_.identity.empty()) throw hub::FieldError("lease identity", "", "is empty");
  if (options_.lease_duration_s <= 0) {
    throw hub::FieldError("lease duration", std::to_string(options_.lease_duration_s),
                          "must be positive");
  }
}

std::string LeaseElector::lease_path() const {
  return std::string(kLeaseApi) + "/namespaces/" + options_.namespace_ + "/leases/" + options_.name;
}

LeaseNow LeaseNow::current() {
  return LeaseNow{std::chrono::steady_clock::now(), Clock::now()};
}

bool LeaseElector::try_acquire_or_renew(const LeaseNow& now) {
  try {
    const kube::Response got = client_.get(lease_path());
    if (got.status == 404) return leader_ = create_lease(now);
    if (!got.ok()) {
      spdlog::warn("lease {}: GET answered {}: {}", lease_path(), got.status, got.body);
      return leader_ = false;
    }
    json lease = config::parse_bounded_json(got.body, "Lease");
    json& spec = lease["spec"];
    if (!spec.is_object()) spec = json::object();
    const std::string holder = string_field(spec, "holderIdentity");
    observe({holder, string_field(spec, "renewTime"), resource_version_of(lease),
             integer_field(spec, "leaseDurationSeconds", options_.lease_duration_s)},
            now);
    const bool ours = holder == options_.identity;
    if (!ours && !holder.empty() && observed_valid(now)) return leader_ = false;
    const std::int64_t transitions = integer_field(spec, "leaseTransitions", 0);
    // A renewal keeps acquireTime and the transition count; a take-over
    // (from another holder, or a released Lease) starts a new term.
    if (!ours) {
      spec["acquireTime"] = format_micro_time(now.wall);
      spec["leaseTransitions"] = transitions + 1;
    }
    spec["holderIdentity"] = options_.identity;
    spec["leaseDurationSeconds"] = options_.lease_duration_s;
    spec["renewTime"] = format_micro_time(now.wall);
    return leader_ = update_lease(lease.dump(), now);
  } catch (const std::exception& error) {
    spdlog::warn("lease {}: {}", lease_path(), error.what());
    return leader_ = false;
  }
}

void LeaseElector::observe(const ObservedRecord& record, const LeaseNow& now) {
  if (observed_any_ && record == observed_) return;
  observed_ = record;
  observed_at_ = now.monotonic;
  observed_any_ = true;
}

bool LeaseElector::observed_valid(const LeaseNow& now) const {
  return observed_at_ + std::chrono::seconds(observed_.lease_duration_s) > now.monotonic;
}

bool LeaseElector::create_lease(const LeaseNow& now) {
  const std::string time = format_micro_time(now.wall);
  const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_}}},
                      {"spec",
                       {{"holderIdentity", options_.identity},
                        {"leaseDurationSeconds", options_.lease_duration_s},
                        {"acquireTime", time},
                        {"renewTime", time},
                        {"leaseTransitions", 0}}}};
  const kube::Response created = client_.post(
      std::string(kLeaseApi) + "/namespaces/" + options_.namespace_ + "/leases", lease.dump());
  if (created.ok()) {
    observe({options_.identity, time,
             resource_version_of(config::parse_bounded_json(created.body, "Lease")),
             options_.lease_duration_s},
            now);
    return true;
  }
  // 409 AlreadyExists: another candidate created it first and leads.
  if (created.status != 409) {
    spdlog::warn("lease {}: create answered {}: {}", lease_path(), created.status, created.body);
  }
  return false;
}

// What we wrote is what we observed last (client-go's setObservedRecord), so
// our own renewals never look like someone else's.
bool LeaseElector::update_lease(const std::string& body, const LeaseNow& now) {
  const kube::Response updated = client_.put(lease_path(), body);
  if (updated.ok()) {
    const json lease = config::parse_bounded_json(updated.body, "Lease");
    const json spec = lease.value("spec", json::object());
    observe({string_field(spec, "holderIdentity"), string_field(spec, "renewTime"),
             resource_version_of(lease),
             integer_field(spec, "leaseDurationSeconds", options_.lease_duration_s)},
            now);
    return true;
  }
  // 409 Conflict: the Lease changed since we read it; whoever changed it won.
  if (updated.status != 409) {
    spdlog::warn("lease {}: PUT answered {}: {}", lease_path(), updated.status, updated.body);
  }
  return false;
}

void LeaseElector::release() {
  if (!leader_) return;
  leader_ = false;
  try {
    const kube::Response got = client_.get(lease_path());
    if (!got.ok()) {
      spdlog::warn("lease {}: release: GET answered {}", lease_path(), got.status);
      return;
    }
    json lease = config::parse_bounded_json(got.body, "Lease");
    json& spec = lease["spec"];
    if (!spec.is_object() || string_field(spec, "holderIdentity") != options_.identity) return;
    spec["holderIdentity"] = "";
    spec["leaseDurationSeconds"] = kReleasedLeaseDurationSeconds;
    update_lease(lease.dump(), LeaseNow::current());
  } catch (const std::exception& error) {
    spdlog::warn("lease {}: release: {}", lease_path(), error.what());
  }
}

}  // namespace gantry::agents
