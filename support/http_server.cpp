#include "support/http_server.hpp"

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace gantry::support {

HttpReply text_reply(int status, std::string text) {
  return HttpReply{status, "text/plain", std::move(text) + "\n", "", ""};
}

HttpReply method_not_allowed(std::string_view method, std::string_view path, std::string allowed) {
  HttpReply reply = text_reply(405, std::string(method) + " is not allowed on " +
                                        std::string(path) + " (allowed: " + allowed + ")");
  reply.allow = std::move(allowed);
  return reply;
}

namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;

// How long to wait before accepting again after accept() failed (say, out of
// file descriptors), so the failure does not turn into a busy loop.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using PlainStream = beast::tcp_stream;

std::string text_of(boost::beast::string_view view) {
  return std::string(view.data(), view.size());
}

// A target as logged: its query may carry a secret (/login?token=...).
std::string without_query(boost::beast::string_view target) {
  return text_of(target.substr(0, target.find('?')));
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string describe(const tcp::endpoint& endpoint) {
  std::string address = endpoint.address().to_string();
  if (endpoint.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(endpoint.port());
}

HttpRequest request_of(const Request& request) {
  const std::string target = text_of(request.target());
  HttpRequest plain;
  plain.method = text_of(request.method_string());
  plain.path = target.substr(0, target.find('?'));  // "?timeout=10s" from the API server
  plain.authorization = text_of(request[http::field::authorization]);
  plain.body = request.body();
  const auto question = target.find('?');
  if (question != std::string::npos) plain.query = target.substr(question + 1);
  plain.cookie = text_of(request[http::field::cookie]);
  return plain;
}

// Where an open stream's text goes: its session, which writes it on its strand.
class StreamTarget {
 public:
  virtual ~StreamTarget() = default;
  virtual void queue(std::string text) = 0;
  // After what was queued: the last chunk, then the connection closes.
  virtual void finish() = 0;
};

class StreamRegistry;

// The HttpStream a sender holds. It refers to its session only until the
// stream ends, so a sender that keeps it past then keeps no connection alive.
class StreamLink final : public HttpStream {
 public:
  StreamLink(std::shared_ptr<StreamTarget> target, StreamRegistry& registry)
      : target_(std::move(target)), registry_(registry) {}

  bool send(std::string text) override {
    const std::lock_guard lock(mutex_);
    if (!target_) return false;
    target_->queue(std::move(text));
    return true;
  }

  void close() override;

  // Later sends answer false. Idempotent.
  void end();

 private:
  std::mutex mutex_;  // send() / end(): no post after end() returned
  std::shared_ptr<StreamTarget> target_;
  StreamRegistry& registry_;
};

// The open streams of one server: at most `limit`, all ended by stop().
class StreamRegistry {
 public:
  void set_limit(std::size_t limit) { limit_ = limit; }  // before the server starts

  // A new stream to `target`, or none when the limit is reached or the
  // server stops.
  std::shared_ptr<StreamLink> open(std::shared_ptr<StreamTarget> target) {
    const std::lock_guard lock(mutex_);
    if (stopped_ || links_.size() >= limit_) return nullptr;
    auto link = std::make_shared<StreamLink>(std::move(target), *this);
    links_.emplace_back(link.get(), link);
    return link;
  }

  void closed(const StreamLink* link) {
    const std::lock_guard lock(mutex_);
    std::erase_if(links_, [link](const auto& entry) { return entry.first == link; });
  }

  std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return links_.size();
  }

  std::size_t limit() const { return limit_; }

  // Ends every stream; none opens after this.
  void end_all() {
    std::vector<std::shared_ptr<StreamLink>> links;
    {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
      for (const auto& entry : links_) {
        if (auto link = entry.second.lock()) links.push_back(std::move(link));
      }
    }
    // Outside the lock: end() calls closed().
    for (const auto& link : links) link->end();
  }

 private:
  std::size_t limit_ = 32;
  mutable std::mutex mutex_;
  // Weak: a link whose session and sender are gone is freed at once.
  std::vector<std::pair<const StreamLink*, std::weak_ptr<StreamLink>>> links_;
  bool stopped_ = false;
};

void StreamLink::close() {
  std::shared_ptr<StreamTarget> dropped;
  {
    const std::lock_guard lock(mutex_);
    if (!target_) return;
    target_->finish();  // under the lock: nothing is queued after it
    dropped = std::move(target_);
  }
  registry_.closed(this);
}

void StreamLink::end() {
  std::shared_ptr<StreamTarget> dropped;
  {
    const std::lock_guard lock(mutex_);
    if (!target_) return;
    dropped = std::move(target_);
  }
  registry_.closed(this);
}

// What the sessions of one server share; it outlives them (see State).
struct Shared {
  const HttpServerOptions& options;
  const HttpRoutes& routes;
  std::atomic<std::uint64_t>& served;
  StreamRegistry& streams;
};

// One connection: (TLS handshake,) then request / response until the client
// closes, a request asks to close, or an operation times out. It lives as
// long as an operation of its own is pending (shared_from_this in handlers).
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>>, public StreamTarget {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(tcp::socket&& socket, ssl::context& tls, const Shared& shared)
      : peer_(peer_of(socket)), stream_(make_stream(std::move(socket), tls)), shared_(shared) {}
  // From any thread: written in order after what was queued before.
  void queue(std::string text) override {
    net::post(stream_.get_executor(), [self = this->shared_from_this(), text = std::move(text)] {
      self->pending_.push_back(std::move(text));
      if (!self->writing_) self->write_chunk();
    });
  }

  void finish() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] {
      self->closing_ = true;
      self->write_chunk();
    });
  }

  void run() {
    // Start on the connection's strand: every operation of one session is
    // serialised there, the session itself needs no lock.
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->handshake();
      } else {
        self->read();
      }
    });
  }

 private:
  static Stream make_stream(tcp::socket&& socket, ssl::context& tls) {
    if constexpr (kTls) {
      return Stream(std::move(socket), tls);
    } else {
      return Stream(std::move(socket));
    }
  }

  static std::string peer_of(const tcp::socket& socket) {
    error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    return ec ? std::string("unknown peer") : describe(endpoint);
  }

  const std::string& name() const { return shared_.options.name; }
  void expire_later() {
    beast::get_lowest_layer(stream_).expires_after(shared_.options.io_timeout);
  }

  void handshake() {
    expire_later();
    stream_.async_handshake(ssl::stream_base::server,
                            [self = this->shared_from_this()](error_code ec) {
                              if (ec) {
                                spdlog::info("{}: TLS handshake with {} failed: {}", self->name(),
                                             self->peer_, ec.message());
                                return;
                              }
                              self->read();
                            });
  }

  void read() {
    parser_.emplace();
    parser_->body_limit(shared_.options.max_body_bytes);
    expire_later();
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    if (ec == http::error::end_of_stream) return shutdown();
    if (ec == http::error::body_limit) {
      // The rest of the body is still on the wire: answer, then close.
      return refuse_unreadable(text_reply(413, "request body is larger than " +
                                                   std::to_string(shared_.options.max_body_bytes) +
                                                   " bytes"));
    }
    if (ec == http::error::partial_message) {
      spdlog::debug("{}: {} closed in the middle of a request", name(), peer_);
      return;
    }
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return refuse_unreadable(text_reply(400, "malformed HTTP request: " + ec.message()));
    }
    if (ec) {
      // The peer went away or timed out: nobody is left to answer.
      spdlog::debug("{}: connection from {} ended: {}", name(), peer_, ec.message());
      return;
    }
    const Request request = parser_->release();
    HttpReply reply = answer(request);
    if (reply.stream) return start_stream(std::move(reply), request);
    if (reply.status >= 400) {
      spdlog::warn("{}: refused {} {} from {}: {} {}", name(), text_of(request.method_string()),
                   without_query(request.target()), peer_, reply.status, first_line(reply.body));
    }
    write(reply, request.version(), request.keep_alive());
  }

  HttpReply answer(const Request& request) const {
    try {
      return shared_.routes(request_of(request));
    } catch (const std::exception& error) {
      return text_reply(500, std::string("internal error: ") + error.what());
    }
  }

  // A request the parser gave up on: answered, and the connection closed,
  // since where the next request would start is unknown.
  void refuse_unreadable(const HttpReply& reply) {
    const std::string what =
        parser_->is_header_done()
            ? text_of(parser_->get().method_string()) + " " + without_query(parser_->get().target())
            : std::string("a request");
    spdlog::warn("{}: refused {} from {}: {} {}", name(), what, peer_, reply.status,
                 first_line(reply.body));
    write(reply, 11, false);
  }

  template <class Message>
  void set_head(Message& message, const HttpReply& reply) const {
    message.set(http::field::server, "gantry-" + name());
    message.set(http::field::content_type, reply.content_type);
    if (!reply.allow.empty()) message.set(http::field::allow, reply.allow);
    if (!reply.www_authenticate.empty())
      message.set(http::field::www_authenticate, reply.www_authenticate);
    for (const auto& [field, value] : reply.headers) message.insert(field, value);
  }

  // A streamed reply: its head, then a chunk for each text sent, until the
  // client goes, a write fails or the server stops. No request is read after
  // it (the connection closes when the stream ends).
  void start_stream(HttpReply reply, const Request& request) {
    link_ = shared_.streams.open(this->shared_from_this());
    if (!link_) {
      const HttpReply busy =
          text_reply(503, "too many open streams (at most " +
                              std::to_string(shared_.streams.limit()) + "); try again later");
      spdlog::warn("{}: refused {} from {}: 503 {}", name(), without_query(request.target()), peer_,
                   first_line(busy.body));
      return write(busy, request.version(), false);
    }
    stream_head_ = StreamHead(static_cast<http::status>(reply.status), request.version());
    set_head(stream_head_, reply);
    stream_head_.set(http::field::cache_control, "no-cache");
    stream_head_.keep_alive(false);
    stream_head_.chunked(true);
    head_serializer_.emplace(stream_head_);
    shared_.served.fetch_add(1);
    expire_later();
    writing_ = true;
    http::async_write_header(stream_, *head_serializer_,
                             [self = this->shared_from_this(), start = std::move(reply.stream)](
                                 error_code ec, std::size_t) {
                               if (!self->stream_written(ec)) return;
                               start(self->link_);
                             });
  }

  // After a write of the stream: false when it failed (the stream ends).
  bool stream_written(error_code ec) {
    writing_ = false;
    if (ec) {
      spdlog::debug("{}: stream to {} ended: {}", name(), peer_, ec.message());
      link_->end();
      return false;
    }
    write_chunk();
    return true;
  }

  // The next text queued, or once none is left and the sender closed the
  // stream, the last chunk.
  void write_chunk() {
    if (!link_ || writing_) return;  // text sent before the head waits
    if (pending_.empty()) {
      if (closing_) write_last_chunk();
      return;
    }
    chunk_ = std::move(pending_.front());
    pending_.pop_front();
    writing_ = true;
    expire_later();
    net::async_write(stream_, http::make_chunk(net::buffer(chunk_)),
                     [self = this->shared_from_this()](error_code ec, std::size_t) {
                       self->stream_written(ec);
                     });
  }

  void write_last_chunk() {
    closing_ = false;
    writing_ = true;
    expire_later();
    net::async_write(stream_, http::make_chunk_last(),
                     [self = this->shared_from_this()](error_code ec, std::size_t) {
                       self->writing_ = false;
                       self->link_->end();
                       if (!ec) self->shutdown();
                     });
  }

  void write(const HttpReply& reply, unsigned version, bool keep_alive) {
    response_ = Response(static_cast<http::status>(reply.status), version);
    set_head(response_, reply);
    response_.body() = reply.body;
    response_.keep_alive(keep_alive);
    response_.prepare_payload();
    // Counted before the bytes leave, so that a client holding its answer
    // always finds it counted.
    shared_.served.fetch_add(1);
    expire_later();
    http::async_write(
        stream_, response_, [self = this->shared_from_this()](error_code ec, std::size_t) {
          if (ec) {
            spdlog::debug("{}: writing to {} failed: {}", self->name(), self->peer_, ec.message());
            return;
          }
          if (self->response_.need_eof()) return self->shutdown();
          self->read();
        });
  }

  void shutdown() {
    if constexpr (kTls) {
      expire_later();
      stream_.async_shutdown([self = this->shared_from_this()](error_code) {});
    } else {
      error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }

  std::string peer_;
  Stream stream_;
  const Shared& shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response response_;
  // A streamed reply's state; all on the strand.
  using StreamHead = http::response<http::empty_body>;
  StreamHead stream_head_;
  std::optional<http::response_serializer<http::empty_body>> head_serializer_;
  std::shared_ptr<StreamLink> link_;
  std::deque<std::string> pending_;
  std::string chunk_;  // being written
  bool writing_ = false;
  bool closing_ = false;  // the sender closed the stream: the last chunk follows what is pending
};

// "host:port", "[v6]:port"; the port may be 0.
tcp::endpoint resolve_listen(const HttpServerOptions& options) {
  const std::string& listen = options.listen;
  const std::string named = options.name + " listen address \"" + listen + "\"";
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw std::runtime_error(named + ": expected host:port");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [end, parse_error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (parse_error != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    throw std::runtime_error(named + ": port must be a number 0-65535");
  }
  net::io_context resolver_context;
  tcp::resolver resolver(resolver_context);
  error_code ec;
  const auto results = resolver.resolve(host, port_text, tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    throw std::runtime_error(named + ": cannot resolve \"" + host + "\": " + ec.message());
  }
  return results.begin()->endpoint();
}

void require_file(const HttpServerOptions& options, const std::string& what,
                  const std::string& file) {
  if (file.empty()) throw std::runtime_error(options.name + " " + what + ": no PEM file given");
  if (!std::filesystem::is_regular_file(file)) {
    throw std::runtime_error(options.name + " " + what + " \"" + file + "\": no such file");
  }
}

// Mutual TLS: only a client whose certificate chains to the client CA gets
// past the handshake.
void require_client_certificate(ssl::context& tls, const HttpServerOptions& options) {
  const std::string& file = options.client_ca_pem_file;
  const std::string named =
      options.name + " client CA (--" + options.name + "-client-ca) \"" + file + "\"";
  if (!std::filesystem::is_regular_file(file)) throw std::runtime_error(named + ": no such file");
  error_code ec;
  tls.load_verify_file(file, ec);
  if (ec) {
    throw std::runtime_error(named + ": not a PEM certificate bundle: " + ec.message());
  }
  tls.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  // With peers verified, OpenSSL refuses to resume a session unless the
  // context names its sessions; without this, a client resuming one would
  // fail its handshake instead of doing a full one.
  const std::string session_context = "gantry-" + options.name;
  SSL_CTX_set_session_id_context(tls.native_handle(),
                                 reinterpret_cast<const unsigned char*>(session_context.data()),
                                 static_cast<unsigned>(session_context.size()));
}

void load_tls(ssl::context& tls, const HttpServerOptions& options) {
  tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                  ssl::context::single_dh_use);
  require_file(options, "certificate", options.cert_pem_file);
  require_file(options, "key", options.key_pem_file);
  error_code ec;
  tls.use_certificate_chain_file(options.cert_pem_file, ec);
  if (ec) {
    throw std::runtime_error(options.name + " certificate \"" + options.cert_pem_file +
                             "\": not a PEM certificate: " + ec.message());
  }
  tls.use_private_key_file(options.key_pem_file, ssl::context::pem, ec);
  if (ec) {
    throw std::runtime_error(options.name + " key \"" + options.key_pem_file +
                             "\": not a PEM private key for the certificate: " + ec.message());
  }
  if (SSL_CTX_check_private_key(tls.native_handle()) != 1) {
    throw std::runtime_error(options.name + " key \"" + options.key_pem_file +
                             "\" does not match certificate \"" + options.cert_pem_file + "\"");
  }
  if (!options.client_ca_pem_file.empty()) require_client_certificate(tls, options);
}

bool wants_tls(const HttpServerOptions& options) {
  return options.tls_required || !options.cert_pem_file.empty() || !options.key_pem_file.empty();
}

}  // namespace

// Declaration order is destruction order in reverse: sessions die with the
// io_context and still use `options`, `routes`, `tls` and `served`, so those
// come first.
struct HttpServer::State {
  HttpServerOptions options;
  HttpRoutes routes;
  bool tls_on = false;
  ssl::context tls{ssl::context::tls_server};
  std::atomic<std::uint64_t> served{0};
  StreamRegistry streams;
  Shared shared{options, routes, served, streams};
  std::unique_ptr<net::io_context> io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<net::steady_timer> accept_retry;
  std::uint16_t port = 0;
  std::vector<std::thread> threads;
  std::mutex mutex;  // start() / stop()
  bool started = false;
  bool stopped = false;

  void bind() {
    const tcp::endpoint endpoint = resolve_listen(options);
    io = std::make_unique<net::io_context>(options.threads);
    acceptor = std::make_unique<tcp::acceptor>(*io);
    accept_retry = std::make_unique<net::steady_timer>(*io);
    error_code ec;
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      throw std::runtime_error(options.name + " cannot listen on " + options.listen + ": " +
                               ec.message());
    }
    port = acceptor->local_endpoint().port();
  }

  void accept() {
    acceptor->async_accept(net::make_strand(*io), [this](error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        spdlog::warn("{}: accept on port {} failed: {}", options.name, port, ec.message());
        accept_retry->expires_after(kAcceptRetryDelay);
        accept_retry->async_wait([this](error_code wait_error) {
          if (!wait_error) accept();
        });
        return;
      }
      if (tls_on) {
        std::make_shared<Session<TlsStream>>(std::move(socket), tls, shared)->run();
      } else {
        std::make_shared<Session<PlainStream>>(std::move(socket), tls, shared)->run();
      }
      accept();
    });
  }

  void run_thread() {
    // A handler that throws must not take the whole server down with it.
    for (;;) {
      try {
        io->run();
        return;
      } catch (const std::exception& error) {
        spdlog::error("{}: handler failed: {}", options.name, error.what());
      }
    }
  }
};

HttpServer::HttpServer(HttpServerOptions options, HttpRoutes routes)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->routes = std::move(routes);
  state_->tls_on = wants_tls(state_->options);
  state_->streams.set_limit(state_->options.max_streams);
  if (state_->tls_on) {
    load_tls(state_->tls, state_->options);
  } else if (!state_->options.client_ca_pem_file.empty()) {
    throw std::runtime_error(state_->options.name + " client CA (--" + state_->options.name +
                             "-client-ca): only with a certificate and key (TLS)");
  }
  state_->bind();
}

HttpServer::~HttpServer() {
  stop();
}

std::uint16_t HttpServer::port() const {
  return state_->port;
}

bool HttpServer::tls() const {
  return state_->tls_on;
}

void HttpServer::start() {
  const std::lock_guard lock(state_->mutex);
  if (state_->started || state_->stopped) return;
  state_->started = true;
  state_->accept();
  for (int i = 0; i < state_->options.threads; ++i) {
    state_->threads.emplace_back([state = state_.get()] { state->run_thread(); });
  }
  spdlog::info("{}: serving {} on {} (port {})", state_->options.name,
               state_->tls_on ? "HTTPS" : "HTTP", state_->options.listen, state_->port);
}

void HttpServer::stop() {
  const std::lock_guard lock(state_->mutex);
  if (state_->stopped) return;
  state_->stopped = true;
  state_->streams.end_all();
  state_->io->stop();
  for (auto& thread : state_->threads) thread.join();
  state_->threads.clear();
  // Destroying the io_context destroys the pending handlers, and with them
  // every session: open connections close now rather than with the server.
  state_->accept_retry.reset();
  state_->acceptor.reset();
  state_->io.reset();
}

std::uint64_t HttpServer::requests_served() const {
  return state_->served.load();
}

std::size_t HttpServer::open_streams() const {
  return state_->streams.size();
}

}  // namespace gantry::support
