#include "bench/e2e/page_watcher.hpp"

#include <poll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <string>
#include <string_view>

namespace gantry::bench::e2e {

namespace {

using tcp = boost::asio::ip::tcp;

// How often the reading thread looks at stopping_ while the stream is quiet.
constexpr int kPollMs = 50;

std::uint64_t count_of(std::string_view text, std::string_view what) {
  std::uint64_t count = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

}  // namespace

PageWatcher::PageWatcher(std::uint16_t port) : port_(port), thread_([this] { run(); }) {}

PageWatcher::~PageWatcher() {
  stop();
}

PageCounters PageWatcher::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  return counters_;
}

void PageWatcher::run() {
  boost::asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code error;
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), error);
  if (error) return;
  const std::string request =
      "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  boost::asio::write(socket, boost::asio::buffer(request), error);
  if (error) return;
  // A marker split across two reads must still count once: keep a tail.
  constexpr std::string_view kEvent = "event: overview\n";
  std::string carried;
  while (!stopping_) {
    pollfd watched{socket.native_handle(), POLLIN, 0};
    if (::poll(&watched, 1, kPollMs) <= 0) continue;
    char chunk[65536];
    const std::size_t n = socket.read_some(boost::asio::buffer(chunk), error);
    if (error) return;
    counters_.bytes += n;
    std::string text = carried + std::string(chunk, n);
    if (!counters_.opened && text.find(" 200 ") != std::string::npos) counters_.opened = true;
    counters_.events += count_of(text, kEvent);
    // The tail is shorter than a marker, so nothing counted is counted again.
    carried = text.substr(text.size() - std::min(text.size(), kEvent.size() - 1));
  }
}

}  // namespace gantry::bench::e2e
