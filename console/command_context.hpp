// What every gantryctl command gets: its parsed arguments, its streams and a
// hub connection made on first use (version and help never connect).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>

#include "console/arguments.hpp"
#include "console/client_keys.hpp"
#include "console/environment.hpp"
#include "console/hub_client.hpp"

namespace gantry::console {

// Exit statuses, documented in usage_text().
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the hub said no, or a wait ended elsewhere / timed out
inline constexpr int kExitUsage = 2;   // bad arguments, or the hub could not be asked

class CommandContext {
 public:
  CommandContext(const Invocation& invocation, const Environment& environment, std::istream& in,
                 std::ostream& out, std::ostream& err)
      : invocation(invocation), environment(environment), in(in), out(out), err(err) {}

  // Throws KeyError when the keys are missing (and --insecure was not given).
  HubClient& hub() {
    if (!hub_) {
      auto keys = client_keys(invocation, environment);
      if (!keys) {
        err << "warning: --insecure: talking to the hub at " << invocation.hub
            << " unencrypted and unauthenticated\n";
      }
      hub_ =
          std::make_unique<HubClient>(invocation.hub, invocation.request_timeout, std::move(keys));
    }
    return *hub_;
  }

  static std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  const Invocation& invocation;
  const Environment& environment;
  std::istream& in;
  std::ostream& out;
  std::ostream& err;

 private:
  std::unique_ptr<HubClient> hub_;
};

}  // namespace gantry::console
