#include "bench/e2e/scraper.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace gantry::bench::e2e {

namespace {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// One GET /metrics on a fresh connection, as Prometheus does after an idle
// interval; the body's size, or -1 when it was not a 200.
std::int64_t scrape_once(std::uint16_t port) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code error;
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port), error);
  if (error) return -1;
  http::request<http::empty_body> request(http::verb::get, "/metrics", 11);
  request.set(http::field::host, "127.0.0.1");
  http::write(socket, request, error);
  if (error) return -1;
  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(256 * 1024 * 1024);
  http::read(socket, buffer, parser, error);
  if (error || parser.get().result_int() != 200) return -1;
  return static_cast<std::int64_t>(parser.get().body().size());
}

}  // namespace

Scraper::Scraper(std::uint16_t port, std::chrono::milliseconds interval)
    : port_(port), interval_(interval), thread_([this] { run(); }) {}

Scraper::~Scraper() {
  stop();
}

ScrapeCounters Scraper::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  return counters_;
}

void Scraper::run() {
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    const auto started = std::chrono::steady_clock::now();
    if (started >= next) {
      const std::int64_t bytes = scrape_once(port_);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      if (bytes < 0) {
        ++counters_.failures;
      } else {
        ++counters_.scrapes;
        counters_.last_bytes = static_cast<std::uint64_t>(bytes);
        if (ms > counters_.slowest_ms) counters_.slowest_ms = ms;
      }
      next = started + interval_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace gantry::bench::e2e
