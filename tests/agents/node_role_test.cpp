// The node role: one report from a fake /proc and the FIXTURE NVML, and the
// loop sending reports to a ROUTER the test binds, until its stop fd is written.
#include "agents/node_role.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "protocol/envelope.hpp"
#include "support/free_port.hpp"
#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

const std::string kFixtureLibrary = std::string(GANTRY_FAKE_NVML_DIR) + "/libnvidia-ml.so.1";

class NodeRoleTest : public ::testing::Test {
 protected:
  NodeRoleTest() {
    std::filesystem::create_directory(dir_.path() / "proc");
    dir_.write("proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2 3 4\n");
    dir_.write("proc/meminfo", "MemTotal:       8000000 kB\nMemAvailable:   6000000 kB\n");
    dir_.write("proc/loadavg", "1.25 0.50 0.25 2/345 6789\n");
    const auto script =
        dir_.write("nvml-script",
                   "name=NVIDIA A100-SXM4-80GB memory_total=85899345920 memory_used=1073741824 "
                   "utilization=37 processes=2\n");
    ::setenv("GANTRY_FAKE_NVML_SCRIPT", script.c_str(), 1);
    options_.cluster = "east";
    options_.node = "gpu-node-1";
    options_.nvml_library = kFixtureLibrary;
    options_.proc = dir_.path() / "proc";
  }
  ~NodeRoleTest() override { ::unsetenv("GANTRY_FAKE_NVML_SCRIPT"); }

  void expect_host_figures(const protocol::NodeReport& report) const {
    EXPECT_EQ(report.cluster, "east");
    EXPECT_EQ(report.node, "gpu-node-1");
    EXPECT_EQ(report.cpu_milli, 2000);
    EXPECT_EQ(report.memory_bytes, 8000000LL * 1024);
    EXPECT_EQ(report.memory_available_bytes, 6000000LL * 1024);
    EXPECT_DOUBLE_EQ(report.load1, 1.25);
  }

  static void expect_scripted_gpu(const protocol::NodeReport& report) {
    EXPECT_EQ(report.gpu_error, "");
    ASSERT_EQ(report.gpus.size(), 1u);
    EXPECT_EQ(report.gpus[0].product, "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(report.gpus[0].memory_total_bytes, 85899345920);
    EXPECT_EQ(report.gpus[0].memory_used_bytes, 1073741824);
    EXPECT_EQ(report.gpus[0].utilization_percent, 37);
    EXPECT_EQ(report.gpus[0].processes, 2);
  }

  support::TempDir dir_{"gantry-node-role-test"};
  NodeRoleOptions options_;
};

TEST_F(NodeRoleTest, SampleJoinsProcAndNvml) {
  Nvml nvml(options_.nvml_library);
  const protocol::NodeReport report = sample_node(options_, nvml);
  expect_host_figures(report);
  expect_scripted_gpu(report);
}

TEST_F(NodeRoleTest, SampleWithoutNvmlSaysWhy) {
  Nvml nvml("/nonexistent/libnvidia-ml.so.1");
  const protocol::NodeReport report = sample_node(options_, nvml);
  expect_host_figures(report);
  EXPECT_TRUE(report.gpus.empty());
  EXPECT_EQ(report.gpu_error, "/nonexistent/libnvidia-ml.so.1 not found: no GPUs on this node");
}

TEST_F(NodeRoleTest, SampleWithUnreadableProcThrows) {
  std::filesystem::remove(options_.proc / "meminfo");
  Nvml nvml(options_.nvml_library);
  EXPECT_THROW(sample_node(options_, nvml), std::runtime_error);
}

// The test plays the cluster-role agent: a ROUTER on a free loopback port.
class ClusterAgentRouter {
 public:
  ClusterAgentRouter() : router_(context_, zmq::socket_type::router) {
    router_.set(zmq::sockopt::linger, 0);
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
    router_.bind(endpoint_);
  }
  const std::string& endpoint() const { return endpoint_; }

  struct Received {
    std::string identity;
    protocol::Envelope envelope;
    protocol::NodeReport report;
  };

  // The next message; nullopt when none comes in a minute (that bound only
  // ends a broken test).
  std::optional<Received> receive() {
    std::vector<zmq::pollitem_t> items{{router_.handle(), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, std::chrono::minutes(1)) == 0) return std::nullopt;
    zmq::message_t identity;
    zmq::message_t frame;
    if (!router_.recv(identity) || !identity.more() || !router_.recv(frame)) return std::nullopt;
    EXPECT_FALSE(frame.more());
    protocol::DecodeError error;
    auto envelope = protocol::decode_envelope(frame.to_string_view(), error);
    if (!envelope) throw std::runtime_error("undecodable frame: " + error.message);
    auto report = protocol::decode_payload<protocol::NodeReport>(*envelope, error);
    if (!report) throw std::runtime_error("not a NodeReport: " + error.message);
    return Received{identity.to_string(), *envelope, *report};
  }

 private:
  zmq::context_t context_{1};
  zmq::socket_t router_;
  std::string endpoint_;
};

class StopPipe {
 public:
  StopPipe() {
    if (::pipe(fds_) != 0) throw std::runtime_error("pipe failed");
  }
  ~StopPipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int read_fd() const { return fds_[0]; }
  void stop() { ASSERT_EQ(::write(fds_[1], "x", 1), 1); }

 private:
  int fds_[2];
};

TEST_F(NodeRoleTest, SendsReportsToTheClusterAgentUntilStopped) {
  ClusterAgentRouter cluster_agent;
  StopPipe stop;
  options_.cluster_agent_endpoint = cluster_agent.endpoint();
  options_.report_interval_ms = 20;
  auto role = std::async(std::launch::async,
                         [this, &stop] { return run_node_role(options_, stop.read_fd()); });

  const auto first = cluster_agent.receive();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->identity, "node/gpu-node-1");
  EXPECT_EQ(first->envelope.type, protocol::MessageType::kNodeReport);
  expect_host_figures(first->report);
  expect_scripted_gpu(first->report);

  // It goes on reporting, each report a new seq.
  const auto later = cluster_agent.receive();
  ASSERT_TRUE(later.has_value());
  EXPECT_GT(later->envelope.seq, first->envelope.seq);
  EXPECT_EQ(later->report.node, "gpu-node-1");

  stop.stop();
  ASSERT_EQ(role.wait_for(std::chrono::minutes(1)), std::future_status::ready);
  EXPECT_EQ(role.get(), 0);
}

TEST_F(NodeRoleTest, BadOptionsEndTheRoleWithStatusOne) {
  StopPipe stop;
  options_.cluster_agent_endpoint = "tcp://127.0.0.1:1";
  options_.report_interval_ms = 0;
  EXPECT_EQ(run_node_role(options_, stop.read_fd()), 1);
}

TEST_F(NodeRoleTest, UnreadableProcEndsTheRoleWithStatusOne) {
  ClusterAgentRouter cluster_agent;
  StopPipe stop;
  options_.cluster_agent_endpoint = cluster_agent.endpoint();
  std::filesystem::remove(options_.proc / "stat");
  EXPECT_EQ(run_node_role(options_, stop.read_fd()), 1);
}

}  // namespace
}  // namespace gantry::agents
