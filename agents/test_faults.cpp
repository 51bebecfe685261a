#include "agents/test_faults.hpp"

#include <charconv>
#include <stdexcept>

namespace gantry::agents {

namespace {

constexpr std::string_view kDropPrepares = "drop-prepares=";

}  // namespace

void add_test_fault(const std::string& spec, TestFaults& faults) {
  const std::string_view text = spec;
  if (text == "reject-prepares") {
    faults.reject_prepares = true;
  } else if (text == "exit-after-admit") {
    faults.exit_after_admit = true;
  } else if (text.substr(0, kDropPrepares.size()) == kDropPrepares) {
    const std::string_view count = text.substr(kDropPrepares.size());
    std::int32_t n = 0;
    const auto [end, status] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (count.empty() || status != std::errc() || end != count.data() + count.size() || n < 1) {
      throw std::invalid_argument("drop-prepares=N needs a whole number N of at least 1");
    }
    faults.drop_prepares = n;
  } else {
    throw std::invalid_argument("must be drop-prepares=N, reject-prepares or exit-after-admit");
  }
}

FaultFilter::Verdict FaultFilter::on_prepare() {
  if (dropped_ < faults_.drop_prepares) {
    ++dropped_;
    return Verdict::kDrop;
  }
  return faults_.reject_prepares ? Verdict::kReject : Verdict::kHandle;
}

bool FaultFilter::stop_after_sending(const OutboundMessage& message) const {
  return faults_.exit_after_admit && std::holds_alternative<protocol::Admit>(message);
}

}  // namespace gantry::agents
