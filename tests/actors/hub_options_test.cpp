#include "actors/hub_options.hpp"

#include <gtest/gtest.h>

namespace gantry::actors {
namespace {

TEST(HubOptionsTest, DefaultsMatchTheDocumentedOnes) {
  const HubCommandLine parsed = parse_hub_command_line({});
  EXPECT_EQ(parsed.options.agents_endpoint, "tcp://127.0.0.1:7800");
  EXPECT_EQ(parsed.options.admin_endpoint, "tcp://127.0.0.1:7801");
  EXPECT_EQ(parsed.options.state_dir, "./var");
  EXPECT_EQ(parsed.options.heartbeat_interval.count(), 1000);
  EXPECT_EQ(parsed.options.liveness, 3);
  EXPECT_FALSE(parsed.options.recovery_grace.has_value());
}

TEST(HubOptionsTest, ReadsEveryFlag) {
  const HubCommandLine parsed = parse_hub_command_line(
      {"--agents", "tcp://0.0.0.0:9000", "--admin", "tcp://127.0.0.1:*", "--state", "/tmp/s",
       "--heartbeat-ms", "250", "--liveness", "5", "--recovery-grace-ms", "30000", "--log-level",
       "debug"});
  EXPECT_EQ(parsed.options.agents_endpoint, "tcp://0.0.0.0:9000");
  EXPECT_EQ(parsed.options.admin_endpoint, "tcp://127.0.0.1:*");
  EXPECT_EQ(parsed.options.state_dir, "/tmp/s");
  EXPECT_EQ(parsed.options.heartbeat_interval.count(), 250);
  EXPECT_EQ(parsed.options.liveness, 5);
  EXPECT_EQ(parsed.options.recovery_grace->count(), 30000);
  EXPECT_EQ(parsed.log_level, "debug");
}

TEST(HubOptionsTest, BadValuesNameTheFlagAndTheValue) {
  const auto message = [](std::vector<std::string> args) {
    try {
      parse_hub_command_line(args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({"--heartbeat-ms", "fast"}),
            "--heartbeat-ms: expected a positive integer (got \"fast\")");
  EXPECT_EQ(message({"--liveness", "0"}), "--liveness: expected a positive integer (got \"0\")");
  EXPECT_EQ(message({"--recovery-grace-ms", "-1"}),
            "--recovery-grace-ms: expected a positive integer (got \"-1\")");
  EXPECT_EQ(message({"--agents", "7800"}), "--agents: expected tcp://HOST:PORT (got \"7800\")");
  EXPECT_EQ(message({"--state"}), "--state: missing value");
  EXPECT_EQ(message({"--colour", "red"}), "unknown flag \"--colour\"");
}

}  // namespace
}  // namespace gantry::actors
