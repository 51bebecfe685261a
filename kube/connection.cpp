#include "kube/connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace gantry::kube {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// How often a waiting call looks at its stop flag.
constexpr auto kStopCheckInterval = std::chrono::milliseconds(200);

[[noreturn]] void fail(const std::string& server, const std::string& step,
                       const std::string& problem) {
  throw std::runtime_error(server + ": " + step + ": " + problem);
}

// A watch can sit idle for minutes; TCP keep-alive notices a peer that
// vanished without a FIN or RST long before the watch's own timeout would.
void keep_alive_probes(tcp::socket& socket) {
  socket.set_option(tcp::no_delay(true));
  socket.set_option(asio::socket_base::keep_alive(true));
  const int fd = socket.native_handle();
  const int idle_seconds = 30, interval_seconds = 10, probes = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_seconds, sizeof idle_seconds);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_seconds, sizeof interval_seconds);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
}

}  // namespace

Connection::Connection(const ServerUrl& url, asio::ssl::context* tls) {
  if (url.tls) {
    tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(io_, *tls);
  } else {
    plain_ = std::make_unique<beast::tcp_stream>(io_);
  }
}

Connection::~Connection() {
  // No TLS close_notify: it could block on a dead peer, and the server does
  // not need it.
  beast::error_code ignored;
  tcp().socket().close(ignored);
}

std::unique_ptr<Connection> Connection::open(const ServerUrl& url, const std::string& server,
                                             asio::ssl::context* tls, Clock::time_point deadline,
                                             const std::atomic<bool>* stop) {
  std::unique_ptr<Connection> connection(new Connection(url, tls));
  connection->connect(url, server, deadline, stop);
  if (url.tls) connection->handshake(url, server, deadline, stop);
  return connection;
}

beast::tcp_stream& Connection::tcp() {
  return tls_ ? beast::get_lowest_layer(*tls_) : *plain_;
}

template <class Initiate>
beast::error_code Connection::run(Initiate&& initiate, Clock::time_point deadline,
                                  const std::atomic<bool>* stop) {
  beast::error_code result;
  bool done = false;
  auto on_done = [&](beast::error_code error, auto&&...) {
    result = error;
    done = true;
  };
  tcp().expires_at(deadline);
  if (tls_) {
    initiate(*tls_, on_done);
  } else {
    initiate(*plain_, on_done);
  }
  bool stopped = false;
  while (!done) {
    io_.restart();
    io_.run_for(kStopCheckInterval);
    if (!done && !stopped && stop != nullptr && stop->load()) {
      stopped = true;
      tcp().close();  // the pending operation completes with operation_aborted
    }
  }
  if (stopped) return asio::error::operation_aborted;
  return result;
}

void Connection::connect(const ServerUrl& url, const std::string& server,
                         Clock::time_point deadline, const std::atomic<bool>* stop) {
  tcp::resolver resolver(io_);
  beast::error_code error;
  const auto endpoints = resolver.resolve(url.host, url.port, error);
  if (error) fail(server, "resolve " + url.host, error.message());
  error =
      run([&](auto&, auto&& handler) { tcp().async_connect(endpoints, handler); }, deadline, stop);
  if (stop != nullptr && stop->load()) throw StoppedError();
  if (error) fail(server, "connect", error.message());
  keep_alive_probes(tcp().socket());
}

void Connection::handshake(const ServerUrl& url, const std::string& server,
                           Clock::time_point deadline, const std::atomic<bool>* stop) {
  SSL* ssl = tls_->native_handle();
  // SNI is for names only (RFC 6066); the certificate must name the host we dialled.
  if (!url.host_is_ip) SSL_set_tlsext_host_name(ssl, url.host.c_str());
  X509_VERIFY_PARAM* verify = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(verify, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (url.host_is_ip) {
    X509_VERIFY_PARAM_set1_ip_asc(verify, url.host.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(verify, url.host.c_str(), 0);
  }
  const beast::error_code error =
      run([&](auto&,
              auto&& handler) { tls_->async_handshake(asio::ssl::stream_base::client, handler); },
          deadline, stop);
  if (stop != nullptr && stop->load()) throw StoppedError();
  if (error) {
    std::string problem = error.message();
    const long verify_result = SSL_get_verify_result(ssl);
    if (verify_result != X509_V_OK) {
      problem += std::string(" (") + X509_verify_cert_error_string(verify_result) + ")";
    }
    fail(server, "TLS handshake", problem);
  }
}

beast::error_code Connection::write(HttpRequest& request, Clock::time_point deadline,
                                    const std::atomic<bool>* stop) {
  return run([&](auto& stream, auto&& handler) { http::async_write(stream, request, handler); },
             deadline, stop);
}

beast::error_code Connection::read_header(HttpParser& parser, Clock::time_point deadline,
                                          const std::atomic<bool>* stop) {
  return run([&](auto& stream,
                 auto&& handler) { http::async_read_header(stream, buffer_, parser, handler); },
             deadline, stop);
}

beast::error_code Connection::read_rest(HttpParser& parser, Clock::time_point deadline,
                                        const std::atomic<bool>* stop) {
  return run(
      [&](auto& stream, auto&& handler) { http::async_read(stream, buffer_, parser, handler); },
      deadline, stop);
}

}  // namespace gantry::kube
