// Test-only fault injection (--test-fault SPEC, repeatable), so that the
// multi-process tests can make one agent lose, refuse or die on a Prepare
// without a real network fault. Applied by the socket loop to its traffic;
// the AgentCore never sees a fault. Off unless asked for.
#pragma once

#include <cstdint>
#include <string>

#include "agents/agent_core.hpp"

namespace gantry::agents {

inline constexpr const char* kRejectPreparesReason = "refused by --test-fault reject-prepares";
// The exit status of an agent stopped by exit-after-admit.
inline constexpr int kExitAfterAdmitStatus = 3;

struct TestFaults {
  std::int32_t drop_prepares = 0;  // drop-prepares=N: the first N Prepare frames are lost
  bool reject_prepares = false;    // reject-prepares: every Prepare is rejected
  bool exit_after_admit = false;   // exit-after-admit: exit right after the first Admit is sent
};

// Adds one SPEC to `faults`. Throws std::invalid_argument saying what it
// expected.
void add_test_fault(const std::string& spec, TestFaults& faults);

class FaultFilter {
 public:
  enum class Verdict : std::uint8_t { kHandle, kDrop, kReject };

  explicit FaultFilter(TestFaults faults) : faults_(faults) {}

  // What becomes of the next Prepare frame.
  Verdict on_prepare();
  // True when the agent must stop, sending nothing more, now that it has
  // sent `message`.
  bool stop_after_sending(const OutboundMessage& message) const;

 private:
  TestFaults faults_;
  std::int32_t dropped_ = 0;
};

}  // namespace gantry::agents
