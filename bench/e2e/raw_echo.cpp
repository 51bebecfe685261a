#include "bench/e2e/raw_echo.hpp"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/e2e/timeline.hpp"

namespace gantry::bench::e2e {

namespace {

// Echoes [identity, payload] until an empty payload arrives.
void echo_server(zmq::socket_t& router) {
  zmq::message_t identity;
  zmq::message_t payload;
  while (router.recv(identity, zmq::recv_flags::none) &&
         router.recv(payload, zmq::recv_flags::none)) {
    if (payload.size() == 0) return;
    router.send(identity, zmq::send_flags::sndmore);
    router.send(payload, zmq::send_flags::none);
  }
}

double pipelined(zmq::socket_t& dealer, std::uint32_t messages, std::uint32_t window,
                 const std::string& body) {
  zmq::message_t reply;
  std::uint32_t sent = 0;
  std::uint32_t received = 0;
  const std::int64_t start = now_ns();
  while (received < messages) {
    while (sent < messages && sent - received < window) {
      dealer.send(zmq::buffer(body), zmq::send_flags::none);
      ++sent;
    }
    if (dealer.recv(reply, zmq::recv_flags::none)) ++received;
    while (dealer.recv(reply, zmq::recv_flags::dontwait)) ++received;
  }
  return messages / ((now_ns() - start) / 1e9);
}

double ping_pong(zmq::socket_t& dealer, std::uint32_t messages, const std::string& body,
                 double& p50_us) {
  zmq::message_t reply;
  std::vector<std::int64_t> round_trips;
  round_trips.reserve(messages);
  const std::int64_t start = now_ns();
  for (std::uint32_t i = 0; i < messages; ++i) {
    const std::int64_t sent = now_ns();
    dealer.send(zmq::buffer(body), zmq::send_flags::none);
    if (!dealer.recv(reply, zmq::recv_flags::none)) break;
    round_trips.push_back(now_ns() - sent);
  }
  const double seconds = (now_ns() - start) / 1e9;
  std::sort(round_trips.begin(), round_trips.end());
  p50_us = round_trips.empty() ? 0 : round_trips[round_trips.size() / 2] / 1e3;
  return round_trips.size() / seconds;
}

}  // namespace

RawEchoResult measure_raw_echo(std::uint32_t messages, std::uint32_t window, std::size_t bytes) {
  zmq::context_t context(1);
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
  std::thread server([&router] { echo_server(router); });

  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(endpoint);
  const std::string body(bytes, 'x');
  RawEchoResult result;
  result.bytes = bytes;
  result.window = window;
  pipelined(dealer, std::min<std::uint32_t>(messages / 10 + 1, 10000), window, body);  // warm-up
  result.pipelined_per_s = pipelined(dealer, messages, window, body);
  result.ping_pong_per_s =
      ping_pong(dealer, std::max<std::uint32_t>(messages / 20, 1), body, result.ping_pong_p50_us);
  dealer.send(zmq::message_t(), zmq::send_flags::none);  // stops the server
  server.join();
  return result;
}

}  // namespace gantry::bench::e2e
