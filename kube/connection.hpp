// One HTTP/1.1 connection (plain or TLS) to an API server, driven with Beast's
// async operations on a private io_context so that every step honours a
// deadline and a stop flag while the caller's thread waits for it.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "kube/server_url.hpp"

namespace gantry::kube {

using Clock = std::chrono::steady_clock;
using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpParser = boost::beast::http::response_parser<boost::beast::http::string_body>;

// Thrown when the caller's stop flag rose while it waited.
class StoppedError : public std::runtime_error {
 public:
  StoppedError() : std::runtime_error("stopped") {}
};

class Connection {
 public:
  // Resolves, connects and (for https) completes the TLS handshake, verifying
  // the server's certificate for url.host, by `deadline`. Throws
  // std::runtime_error starting with `server` as the caller names it ("kube
  // server https://...", "etcd endpoint http://..."), or StoppedError.
  static std::unique_ptr<Connection> open(const ServerUrl& url, const std::string& server,
                                          boost::asio::ssl::context* tls,
                                          Clock::time_point deadline,
                                          const std::atomic<bool>* stop);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Each returns the error (beast::error::timeout past the deadline,
  // operation_aborted once `stop` rose); the connection is unusable after one.
  boost::beast::error_code write(HttpRequest& request, Clock::time_point deadline,
                                 const std::atomic<bool>* stop);
  boost::beast::error_code read_header(HttpParser& parser, Clock::time_point deadline,
                                       const std::atomic<bool>* stop);
  boost::beast::error_code read_rest(HttpParser& parser, Clock::time_point deadline,
                                     const std::atomic<bool>* stop);

 private:
  Connection(const ServerUrl& url, boost::asio::ssl::context* tls);
  void connect(const ServerUrl& url, const std::string& server, Clock::time_point deadline,
               const std::atomic<bool>* stop);
  void handshake(const ServerUrl& url, const std::string& server, Clock::time_point deadline,
                 const std::atomic<bool>* stop);
  boost::beast::tcp_stream& tcp();
  // Starts one async operation with `initiate(stream, handler)` and runs the
  // io_context until it completes, closing the socket when `stop` rises.
  template <class Initiate>
  boost::beast::error_code run(Initiate&& initiate, Clock::time_point deadline,
                               const std::atomic<bool>* stop);

  boost::asio::io_context io_;
  std::unique_ptr<boost::beast::tcp_stream> plain_;
  std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
  boost::beast::flat_buffer buffer_;  // bytes read past one response stay for the next
};

}  // namespace gantry::kube
