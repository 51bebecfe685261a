// The hub's side of lifecycle policies that lives outside the core: the
// --restart-backoff flag (the first wait before a policy's restart).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "actors/hub_options.hpp"

namespace gantry::actors {
namespace {

std::string refusal_of(std::vector<std::string> args) {
  try {
    parse_hub_command_line(args);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(LifecycleHubOptions, RestartBackoffDefaultsToTenSeconds) {
  EXPECT_EQ(parse_hub_command_line({}).options.settings.scheduling.restart_backoff_ms, 10'000);
}

TEST(LifecycleHubOptions, RestartBackoffReadsADuration) {
  EXPECT_EQ(parse_hub_command_line({"--restart-backoff", "200ms"})
                .options.settings.scheduling.restart_backoff_ms,
            200);
  EXPECT_EQ(parse_hub_command_line({"--restart-backoff", "1m"})
                .options.settings.scheduling.restart_backoff_ms,
            60'000);
}

TEST(LifecycleHubOptions, RestartBackoffRefusesWhatIsNotADuration) {
  const std::string refused = refusal_of({"--restart-backoff", "soon"});
  EXPECT_NE(refused.find("--restart-backoff"), std::string::npos) << refused;
  EXPECT_NE(refused.find("soon"), std::string::npos) << refused;
}

}  // namespace
}  // namespace gantry::actors
