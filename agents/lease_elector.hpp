// Leader election for the cluster role over a coordination.k8s.io/v1 Lease,
// with client-go's leaderelection semantics (tools/leaderelection): one
// attempt at a time, the caller's clock. Several agents of one cluster may
// run; only the one holding the Lease acts as the cluster role.
//
// Expiry is measured as client-go measures it, never from the Lease's
// renewTime (another machine's wall clock): a candidate notes on its own
// monotonic clock when it last saw the record change (holder, renewTime or
// resourceVersion), and takes the Lease once leaseDurationSeconds have passed
// since then without a change.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "kube/client.hpp"

namespace gantry::agents {

// One reading of both clocks, as Go's time.Now() carries both: `monotonic`
// measures expiry, `wall` is written (renewTime, acquireTime) for humans and
// other clients.
struct LeaseNow {
  std::chrono::steady_clock::time_point monotonic;
  std::chrono::system_clock::time_point wall;
  static LeaseNow current();
};

struct LeaseOptions {
  std::string namespace_;
  std::string name;
  std::string identity;  // holderIdentity: unique per candidate (the pod name)
  std::int32_t lease_duration_s = 15;
};

class LeaseElector {
 public:
  LeaseElector(kube::Client& client, LeaseOptions options);

  // One attempt: reads the Lease (creates it, held by us, when absent); if we
  // hold it, renews it (spec.renewTime); if another holds it and the record
  // has not changed for its leaseDurationSeconds by `now.monotonic` (counted
  // from when this elector first saw it so), takes it (acquireTime,
  // leaseTransitions + 1); otherwise we are not the leader.
  // Writes are PUTs carrying metadata.resourceVersion, so of two candidates
  // racing only one wins (the other gets 409: not leader). Any failure (API
  // error, server unreachable, a malformed Lease) counts as not leader and is
  // logged naming the field and value. Returns whether we lead after it.
  bool try_acquire_or_renew(const LeaseNow& now);

  // Hands over gracefully, as client-go's ReleaseOnCancel: clears
  // holderIdentity when we hold the Lease, so another candidate takes it on
  // its next attempt instead of waiting the lease duration. Never throws.
  void release();

  bool is_leader() const { return leader_; }
  // holderIdentity as last read or written ("" before any, or when released).
  const std::string& observed_holder() const { return observed_.holder; }

 private:
  // What tells one state of the Lease from the next: a holder renewing moves
  // renewTime, and any write moves resourceVersion.
  struct ObservedRecord {
    std::string holder;
    std::string renew_time;
    std::string resource_version;
    std::int64_t lease_duration_s = 0;
    bool operator==(const ObservedRecord&) const = default;
  };

  std::string lease_path() const;
  bool create_lease(const LeaseNow& now);
  bool update_lease(const std::string& body, const LeaseNow& now);
  // Notes `record`, and `now` as the time it was seen, when it differs from the last one.
  void observe(const ObservedRecord& record, const LeaseNow& now);
  // Whether the holder of the observed record may still be renewing it.
  bool observed_valid(const LeaseNow& now) const;

  kube::Client& client_;
  LeaseOptions options_;
  bool leader_ = false;
  bool observed_any_ = false;
  ObservedRecord observed_;
  std::chrono::steady_clock::time_point observed_at_;
};

// coordination.k8s.io MicroTime text, "2006-01-02T15:04:05.000000Z" (UTC).
std::string format_micro_time(std::chrono::system_clock::time_point time);
// Reads RFC 3339 times with or without fractional seconds, "Z" or an offset.
// Throws hub::FieldError naming `field` and the text when it is not one.
std::chrono::system_clock::time_point parse_micro_time(const std::string& text,
                                                       const std::string& field);

}  // namespace gantry::agents
