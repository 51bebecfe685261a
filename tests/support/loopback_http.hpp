// A GET over a fresh loopback connection, as a scraper or browser sends it:
// for the tests of the HTTP endpoints (metrics, web view).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <string>

namespace gantry::support {

// `field` set (not unknown): sent with `value`, e.g. Authorization or Cookie.
inline boost::beast::http::response<boost::beast::http::string_body> loopback_get(
    std::uint16_t port, const std::string& target,
    boost::beast::http::field field = boost::beast::http::field::unknown,
    const std::string& value = "") {
  namespace http = boost::beast::http;
  using tcp = boost::asio::ip::tcp;
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::string_body> request(http::verb::get, target, 11);
  request.set(http::field::host, "127.0.0.1");
  if (field != http::field::unknown) request.set(field, value);
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response;
}

}  // namespace gantry::support
