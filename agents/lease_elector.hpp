// Leader election for the cluster role over a coordination.k8s.io/v1 Lease,
// with client-go's leaderelection semantics (tools/leaderelection): one
// attempt at a time, the caller's clock. Several agents of one cluster may
// run; only the one holding the Lease acts as the cluster role.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "kube/client.hpp"

namespace gantry::agents {

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
  // hold it, renews it (spec.renewTime); if another holds it and its
  // renewTime + leaseDurationSeconds has passed by `now`, takes it
  // (acquireTime, leaseTransitions + 1); otherwise we are not the leader.
  // Writes are PUTs carrying metadata.resourceVersion, so of two candidates
  // racing only one wins (the other gets 409: not leader). Any failure (API
  // error, server unreachable, a malformed Lease) counts as not leader and is
  // logged naming the field and value. Returns whether we lead after it.
  bool try_acquire_or_renew(std::chrono::system_clock::time_point now);

  // Hands over gracefully, as client-go's ReleaseOnCancel: clears
  // holderIdentity when we hold the Lease, so another candidate takes it on
  // its next attempt instead of waiting the lease duration. Never throws.
  void release();

  bool is_leader() const { return leader_; }

 private:
  std::string lease_path() const;
  bool create_lease(std::chrono::system_clock::time_point now);
  bool update_lease(const std::string& body);

  kube::Client& client_;
  LeaseOptions options_;
  bool leader_ = false;
};

// coordination.k8s.io MicroTime text, "2006-01-02T15:04:05.000000Z" (UTC).
std::string format_micro_time(std::chrono::system_clock::time_point time);
// Reads RFC 3339 times with or without fractional seconds, "Z" or an offset.
// Throws hub::FieldError naming `field` and the text when it is not one.
std::chrono::system_clock::time_point parse_micro_time(const std::string& text,
                                                       const std::string& field);

}  // namespace gantry::agents
