// A small HTTP/1.1 server for what the hub and its gateway serve to machines:
// the admission webhook (HTTPS, maybe mutual TLS) and the metrics and health
// endpoints (HTTPS with a certificate, else plain HTTP). Boost.Beast on its
// own threads; each connection runs on its own strand with timeouts, so a
// stalled or garbage-speaking client holds up nobody else. What a request
// means is the caller's: one function maps a request to its reply.
// A body over the limit -> 413 before it is read; a malformed request -> 400
// and the connection closed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::support {

struct HttpRequest {
  std::string method;  // "GET"
  std::string path;    // the target without its query
  std::string authorization;
  std::string body;
  std::string query{};   // the target after "?", as sent (not decoded)
  std::string cookie{};  // the Cookie header
};

// An open streamed reply. Thread-safe.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // Queues `text` to be written, in order, on the connection's strand. False
  // once the stream has ended (the client went away, a write failed or timed
  // out, the server stopped): the sender drops it then.
  virtual bool send(std::string text) = 0;
  // Ends the stream from the sender's side: what was sent before is written,
  // then the last chunk, and the connection closes. Later sends answer
  // false. Idempotent.
  virtual void close() = 0;
};

// Called once the reply's head is written, with the stream to send on.
using HttpStreamStart = std::function<void(std::shared_ptr<HttpStream>)>;

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  std::string allow;             // for 405
  std::string www_authenticate;  // for 401
  std::vector<std::pair<std::string, std::string>> headers{};  // more: Location, Set-Cookie
  // Set: the body is a chunked stream that starts empty (`body` is ignored);
  // the server holds at most max_streams open and answers 503 beyond them.
  HttpStreamStart stream{};
};

HttpReply text_reply(int status, std::string text);
HttpReply method_not_allowed(std::string_view method, std::string_view path, std::string allowed);

using HttpRoutes = std::function<HttpReply(const HttpRequest&)>;

struct HttpServerOptions {
  // Names the server in logs ("webhook: ..."), errors, its flags
  // ("--webhook-client-ca") and the Server header ("gantry-webhook").
  std::string name = "http";
  std::string listen = "127.0.0.1:0";  // host:port; port 0 = pick a free one (tests)
  // TLS serving certificate (chain) and key, PEM files. Both empty: plain
  // HTTP, unless tls_required.
  std::string cert_pem_file;
  std::string key_pem_file;
  bool tls_required = false;
  // CA bundle (PEM) of the clients' certificates. Set: a client must present
  // one signed by these CAs, or its TLS handshake fails before any HTTP is read.
  std::string client_ca_pem_file;
  std::uint64_t max_body_bytes = 4 * 1024 * 1024;
  int threads = 2;
  std::chrono::seconds io_timeout{30};
  std::size_t max_streams = 32;  // open streamed replies at once
};

class HttpServer {
 public:
  // Loads the certificate, key and client CA, and binds the address
  // (connections queue in the backlog until start()); throws
  // std::runtime_error naming the file or the address.
  HttpServer(HttpServerOptions options, HttpRoutes routes);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const;  // as bound
  bool tls() const;
  void start();
  // Prompt: ends the streams (their send() answers false from now on),
  // abandons open connections, then joins the threads. Idempotent.
  void stop();
  // Requests answered, whatever the status (counted as the answer is sent).
  std::uint64_t requests_served() const;
  std::size_t open_streams() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gantry::support
