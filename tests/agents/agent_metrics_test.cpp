// What an agent tells Prometheus (agents/agent_metrics.hpp); the loop's counts
// against a real hub and Prometheus: tests/e2e/metrics_test.py.
#include "agents/agent_metrics.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gantry::agents {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(AgentMetrics, AnswersSentAreCountedByKind) {
  AgentMetrics metrics;
  metrics.sent(protocol::Admit{});
  metrics.sent(protocol::Admit{});
  metrics.sent(protocol::Reject{});
  metrics.sent(protocol::StatusUpdate{});  // not a Prepare's answer
  const std::string text = render_agent_metrics(metrics, "east", "standalone");
  EXPECT_TRUE(has_line(
      text,
      "gantry_agent_prepares_total{cluster=\"east\",role=\"standalone\",result=\"admitted\"} 2"))
      << text;
  EXPECT_TRUE(has_line(
      text,
      "gantry_agent_prepares_total{cluster=\"east\",role=\"standalone\",result=\"refused\"} 1"))
      << text;
}

TEST(AgentMetrics, ReportTimeIsInUnixSeconds) {
  AgentMetrics metrics;
  metrics.last_usage_report_ms = 1'700'000'000'500;
  metrics.nvml_read_errors = 4;
  const std::string text = render_agent_metrics(metrics, "east", "node");
  EXPECT_TRUE(has_line(text,
                       "gantry_agent_last_usage_report_timestamp_seconds{cluster=\"east\",role="
                       "\"node\"} 1700000000.5"))
      << text;
  EXPECT_TRUE(
      has_line(text, "gantry_agent_nvml_read_errors_total{cluster=\"east\",role=\"node\"} 4"))
      << text;
}

TEST(AgentMetrics, ReadyOnceWelcomedButANodeAgentWhenRunning) {
  AgentMetrics metrics;
  EXPECT_EQ(agent_not_ready_reason(metrics, "standalone"), "not connected to the hub");
  EXPECT_EQ(agent_not_ready_reason(metrics, "cluster"), "not connected to the hub");
  EXPECT_EQ(agent_not_ready_reason(metrics, "node"), "");
  metrics.hub_connected = true;
  EXPECT_EQ(agent_not_ready_reason(metrics, "standalone"), "");
}

}  // namespace
}  // namespace gantry::agents
