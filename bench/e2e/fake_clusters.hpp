// The simulated member clusters: one thread owning one DEALER socket per
// cluster (routing id agent/<name>, as gantry-agent), polling them all. One
// thread is enough and keeps the benchmark's own CPU use small next to the
// hub's on a small machine.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/e2e/fake_cluster.hpp"

namespace gantry::bench::e2e {

class FakeClusters {
 public:
  FakeClusters(std::string hub_agents_endpoint, std::uint32_t count, const ClusterShape& shape,
               Timeline& timeline);
  ~FakeClusters();  // stop()
  FakeClusters(const FakeClusters&) = delete;
  FakeClusters& operator=(const FakeClusters&) = delete;

  void start();
  void stop();  // idempotent; joins the thread
  std::uint32_t registered() const { return registered_.load(std::memory_order_acquire); }
  // Sums over every cluster; valid after stop().
  ClusterCounters totals() const;

 private:
  void run();
  void receive(std::size_t index, zmq::socket_t& socket, std::int64_t now,
               std::vector<std::string>& out);
  void send_all(zmq::socket_t& socket, std::vector<std::string>& out);
  void count_registered();
  long poll_timeout_ms(std::int64_t now) const;

  std::string endpoint_;
  zmq::context_t context_{1};
  std::vector<FakeCluster> clusters_;
  std::atomic<std::uint32_t> registered_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace gantry::bench::e2e
