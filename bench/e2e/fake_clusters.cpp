#include "bench/e2e/fake_clusters.hpp"

#include <algorithm>
#include <cstdio>

namespace gantry::bench::e2e {

namespace {

std::string cluster_name(std::uint32_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "sim-%03u", index);
  return name;
}

zmq::socket_t connect_dealer(zmq::context_t& context, const std::string& endpoint,
                             const std::string& routing_id) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::routing_id, routing_id);
  socket.set(zmq::sockopt::linger, 0);
  // No high-water mark: a burst of answers must not be dropped or block the thread.
  socket.set(zmq::sockopt::sndhwm, 0);
  socket.set(zmq::sockopt::rcvhwm, 0);
  socket.connect(endpoint);
  return socket;
}

}  // namespace

FakeClusters::FakeClusters(std::string hub_agents_endpoint, std::uint32_t count,
                           const ClusterShape& shape, Timeline& timeline)
    : endpoint_(std::move(hub_agents_endpoint)) {
  clusters_.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i)
    clusters_.emplace_back(cluster_name(i), shape, timeline);
}

FakeClusters::~FakeClusters() {
  stop();
}

void FakeClusters::start() {
  thread_ = std::thread([this] { run(); });
}

void FakeClusters::stop() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

ClusterCounters FakeClusters::totals() const {
  ClusterCounters sum;
  for (const FakeCluster& cluster : clusters_) {
    const ClusterCounters& c = cluster.counters();
    sum.prepares += c.prepares;
    sum.rejects += c.rejects;
    sum.commits += c.commits;
    sum.aborts += c.aborts;
    sum.cancels += c.cancels;
    sum.usage_reports += c.usage_reports;
    sum.hub_errors += c.hub_errors;
    sum.frames_in += c.frames_in;
    sum.frames_out += c.frames_out;
  }
  return sum;
}

// Sockets are created, used and closed on this thread only (ZeroMQ sockets
// are not thread-safe).
void FakeClusters::run() {
  std::vector<zmq::socket_t> sockets;
  std::vector<zmq::pollitem_t> items;
  sockets.reserve(clusters_.size());
  for (FakeCluster& cluster : clusters_) {
    sockets.push_back(connect_dealer(context_, endpoint_, cluster.routing_id()));
    sockets.back().send(zmq::buffer(cluster.hello()), zmq::send_flags::none);
  }
  for (zmq::socket_t& socket : sockets) items.push_back({socket.handle(), 0, ZMQ_POLLIN, 0});
  std::vector<std::string> out;
  while (!stopping_.load(std::memory_order_relaxed)) {
    zmq::poll(items, std::chrono::milliseconds(poll_timeout_ms(now_ns())));
    const std::int64_t now = now_ns();
    for (std::size_t i = 0; i < clusters_.size(); ++i) {
      if (items[i].revents & ZMQ_POLLIN) receive(i, sockets[i], now, out);
      clusters_[i].on_time(now, out);
      clusters_[i].flush(out);
      send_all(sockets[i], out);
    }
    count_registered();
  }
}

void FakeClusters::receive(std::size_t index, zmq::socket_t& socket, std::int64_t now,
                           std::vector<std::string>& out) {
  zmq::message_t frame;
  while (socket.recv(frame, zmq::recv_flags::dontwait)) {
    clusters_[index].on_frame(std::string_view(frame.data<char>(), frame.size()), now, out);
  }
}

void FakeClusters::send_all(zmq::socket_t& socket, std::vector<std::string>& out) {
  for (const std::string& frame : out) socket.send(zmq::buffer(frame), zmq::send_flags::none);
  out.clear();
}

void FakeClusters::count_registered() {
  const auto count = std::count_if(clusters_.begin(), clusters_.end(),
                                   [](const FakeCluster& c) { return c.registered(); });
  registered_.store(static_cast<std::uint32_t>(count), std::memory_order_release);
}

long FakeClusters::poll_timeout_ms(std::int64_t now) const {
  std::int64_t deadline = now + 10'000'000;  // wake at least every 10 ms to see stop()
  for (const FakeCluster& cluster : clusters_)
    deadline = std::min(deadline, cluster.next_deadline());
  return static_cast<long>(std::max<std::int64_t>(0, (deadline - now + 999'999) / 1'000'000));
}

}  // namespace gantry::bench::e2e
