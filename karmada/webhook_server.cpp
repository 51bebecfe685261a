#include "karmada/webhook_server.hpp"

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
#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "config/bounded_json.hpp"
#include "hub/field_error.hpp"
#include "karmada/admission.hpp"

namespace gantry::karmada {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;

// Kubernetes gives a webhook at most 30 s (timeoutSeconds); a connection idle
// or stalled longer than that is not the API server waiting on us.
constexpr auto kIoTimeout = std::chrono::seconds(30);
// AdmissionReviews carry one object plus its old version; Kubernetes objects
// are capped at ~1.5 MiB in etcd, so 4 MiB is generous and bounds memory.
constexpr std::uint64_t kMaxBodyBytes = 4 * 1024 * 1024;
// Admission traffic is one request per ResourceBinding created: two threads
// keep one slow TLS handshake from delaying another, no more is needed.
constexpr int kThreads = 2;
// How long to wait before accepting again after accept() failed (say, out of
// file descriptors), so the failure does not turn into a busy loop.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// What the server answers to one request, before it becomes HTTP.
struct Reply {
  http::status status = http::status::ok;
  std::string content_type = "text/plain";
  std::string body;
  std::string allow;  // for 405
};

Reply text_reply(http::status status, std::string text) {
  return Reply{status, "text/plain", std::move(text) + "\n", ""};
}

Reply method_not_allowed(std::string_view method, std::string_view path, std::string allowed) {
  Reply reply = text_reply(http::status::method_not_allowed,
                           std::string(method) + " is not allowed on " + std::string(path) +
                               " (allowed: " + allowed + ")");
  reply.allow = std::move(allowed);
  return reply;
}

// The review's answer, or the 400 that names what is wrong with it.
Reply review_reply(const std::string& body) {
  nlohmann::json review;
  try {
    review = config::parse_bounded_json(body, "AdmissionReview");
  } catch (const hub::FieldError& error) {  // not JSON, or nested past the limit
    return text_reply(http::status::bad_request,
                      std::string("request body is not JSON within the limits: ") + error.what());
  }
  try {
    return Reply{http::status::ok, "application/json", admission_response(review).dump(), ""};
  } catch (const hub::FieldError& error) {
    return text_reply(http::status::bad_request, error.what());
  } catch (const nlohmann::json::exception& error) {
    // A field of an unexpected JSON type that admission_response did not name:
    // still the caller's input, not our failure.
    return text_reply(http::status::bad_request,
                      std::string("malformed AdmissionReview: ") + error.what());
  } catch (const std::exception& error) {
    return text_reply(http::status::internal_server_error,
                      std::string("internal error: ") + error.what());
  }
}

// The API server appends "?timeout=10s" to the configured path.
std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

Reply route(const Request& request) {
  const std::string_view target(request.target().data(), request.target().size());
  const std::string_view path = path_of(target);
  const std::string_view method(request.method_string().data(), request.method_string().size());
  if (path == "/healthz") {
    if (request.method() != http::verb::get) return method_not_allowed(method, path, "GET");
    return text_reply(http::status::ok, "ok");
  }
  if (path == "/mutate-resourcebindings" || path == "/mutate") {
    if (request.method() != http::verb::post) return method_not_allowed(method, path, "POST");
    return review_reply(request.body());
  }
  return text_reply(http::status::not_found, "no such path: " + std::string(path));
}

std::string text_of(boost::beast::string_view view) {
  return std::string(view.data(), view.size());
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string describe(const tcp::endpoint& endpoint) {
  std::string address = endpoint.address().to_string();
  if (endpoint.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(endpoint.port());
}

// One TLS connection: handshake, then request / response until the client
// closes, a request asks to close, or an operation times out. It lives as
// long as an operation of its own is pending (shared_from_this in handlers).
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, ssl::context& tls, std::atomic<std::uint64_t>& served)
      : peer_(peer_of(socket)), stream_(std::move(socket), tls), served_(served) {}

  void run() {
    // Start on the connection's strand: every operation of one session is
    // serialised there, the session itself needs no lock.
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->handshake(); });
  }

 private:
  static std::string peer_of(const tcp::socket& socket) {
    error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    return ec ? std::string("unknown peer") : describe(endpoint);
  }

  void handshake() {
    beast::get_lowest_layer(stream_).expires_after(kIoTimeout);
    stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
      if (ec) {
        spdlog::info("webhook: TLS handshake with {} failed: {}", self->peer_, ec.message());
        return;
      }
      self->read();
    });
  }

  void read() {
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    beast::get_lowest_layer(stream_).expires_after(kIoTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    if (ec == http::error::end_of_stream) return shutdown();
    if (ec == http::error::body_limit) {
      // The rest of the body is still on the wire: answer, then close.
      return refuse_unreadable(
          text_reply(http::status::payload_too_large,
                     "request body is larger than " + std::to_string(kMaxBodyBytes) + " bytes"));
    }
    if (ec == http::error::partial_message) {
      spdlog::debug("webhook: {} closed in the middle of a request", peer_);
      return;
    }
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return refuse_unreadable(
          text_reply(http::status::bad_request, "malformed HTTP request: " + ec.message()));
    }
    if (ec) {
      // The peer went away or timed out: nobody is left to answer.
      spdlog::debug("webhook: connection from {} ended: {}", peer_, ec.message());
      return;
    }
    const Request request = parser_->release();
    const Reply reply = route(request);
    if (reply.status != http::status::ok) {
      spdlog::warn("webhook: refused {} {} from {}: {} {}", text_of(request.method_string()),
                   text_of(request.target()), peer_, static_cast<unsigned>(reply.status),
                   first_line(reply.body));
    }
    write(reply, request.version(), request.keep_alive());
  }

  // A request the parser gave up on: answered, and the connection closed,
  // since where the next request would start is unknown.
  void refuse_unreadable(const Reply& reply) {
    const std::string what = parser_->is_header_done() ? text_of(parser_->get().method_string()) +
                                                             " " + text_of(parser_->get().target())
                                                       : std::string("a request");
    spdlog::warn("webhook: refused {} from {}: {} {}", what, peer_,
                 static_cast<unsigned>(reply.status), first_line(reply.body));
    write(reply, 11, false);
  }

  void write(const Reply& reply, unsigned version, bool keep_alive) {
    response_ = Response(reply.status, version);
    response_.set(http::field::server, "gantry-webhook");
    response_.set(http::field::content_type, reply.content_type);
    if (!reply.allow.empty()) response_.set(http::field::allow, reply.allow);
    response_.body() = reply.body;
    response_.keep_alive(keep_alive);
    response_.prepare_payload();
    // Counted before the bytes leave, so that a client holding its answer
    // always finds it counted.
    served_.fetch_add(1);
    beast::get_lowest_layer(stream_).expires_after(kIoTimeout);
    http::async_write(stream_, response_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec) {
        spdlog::debug("webhook: writing to {} failed: {}", self->peer_, ec.message());
        return;
      }
      if (self->response_.need_eof()) return self->shutdown();
      self->read();
    });
  }

  void shutdown() {
    beast::get_lowest_layer(stream_).expires_after(kIoTimeout);
    stream_.async_shutdown([self = shared_from_this()](error_code) {});
  }

  std::string peer_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  std::atomic<std::uint64_t>& served_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response response_;
};

// "host:port", "[v6]:port"; the port may be 0.
tcp::endpoint resolve_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw std::runtime_error("webhook listen address \"" + listen + "\": expected host:port");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [end, parse_error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (parse_error != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    throw std::runtime_error("webhook listen address \"" + listen +
                             "\": port must be a number 0-65535");
  }
  net::io_context resolver_context;
  tcp::resolver resolver(resolver_context);
  error_code ec;
  const auto results = resolver.resolve(host, port_text, tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    throw std::runtime_error("webhook listen address \"" + listen + "\": cannot resolve \"" + host +
                             "\": " + ec.message());
  }
  return results.begin()->endpoint();
}

void require_file(const std::string& what, const std::string& file) {
  if (file.empty()) throw std::runtime_error("webhook " + what + ": no PEM file given");
  if (!std::filesystem::is_regular_file(file)) {
    throw std::runtime_error("webhook " + what + " \"" + file + "\": no such file");
  }
}

// Mutual TLS: only a client whose certificate chains to the client CA gets
// past the handshake, so nobody else can have a review answered (or learn
// what Gantry patches).
void require_client_certificate(ssl::context& tls, const WebhookOptions& options) {
  const std::string& file = options.client_ca_pem_file;
  const std::string named = "webhook client CA (--webhook-client-ca) \"" + file + "\"";
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
  static constexpr unsigned char kSessionContext[] = "gantry-webhook";
  SSL_CTX_set_session_id_context(tls.native_handle(), kSessionContext, sizeof(kSessionContext) - 1);
}

void load_tls(ssl::context& tls, const WebhookOptions& options) {
  tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                  ssl::context::single_dh_use);
  require_file("certificate", options.cert_pem_file);
  require_file("key", options.key_pem_file);
  error_code ec;
  tls.use_certificate_chain_file(options.cert_pem_file, ec);
  if (ec) {
    throw std::runtime_error("webhook certificate \"" + options.cert_pem_file +
                             "\": not a PEM certificate: " + ec.message());
  }
  tls.use_private_key_file(options.key_pem_file, ssl::context::pem, ec);
  if (ec) {
    throw std::runtime_error("webhook key \"" + options.key_pem_file +
                             "\": not a PEM private key for the certificate: " + ec.message());
  }
  if (SSL_CTX_check_private_key(tls.native_handle()) != 1) {
    throw std::runtime_error("webhook key \"" + options.key_pem_file +
                             "\" does not match certificate \"" + options.cert_pem_file + "\"");
  }
  if (!options.client_ca_pem_file.empty()) require_client_certificate(tls, options);
}

}  // namespace

// Declaration order is destruction order in reverse: sessions die with the
// io_context and still use `tls` and `served`, so those come first.
struct WebhookServer::State {
  WebhookOptions options;
  ssl::context tls{ssl::context::tls_server};
  std::atomic<std::uint64_t> served{0};
  std::unique_ptr<net::io_context> io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<net::steady_timer> accept_retry;
  std::uint16_t port = 0;
  std::vector<std::thread> threads;
  std::mutex mutex;  // start() / stop()
  bool started = false;
  bool stopped = false;

  void bind() {
    const tcp::endpoint endpoint = resolve_listen(options.listen);
    io = std::make_unique<net::io_context>(kThreads);
    acceptor = std::make_unique<tcp::acceptor>(*io);
    accept_retry = std::make_unique<net::steady_timer>(*io);
    error_code ec;
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      throw std::runtime_error("webhook cannot listen on " + options.listen + ": " + ec.message());
    }
    port = acceptor->local_endpoint().port();
  }

  void accept() {
    acceptor->async_accept(net::make_strand(*io), [this](error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        spdlog::warn("webhook: accept on port {} failed: {}", port, ec.message());
        accept_retry->expires_after(kAcceptRetryDelay);
        accept_retry->async_wait([this](error_code wait_error) {
          if (!wait_error) accept();
        });
        return;
      }
      std::make_shared<Session>(std::move(socket), tls, served)->run();
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
        spdlog::error("webhook: handler failed: {}", error.what());
      }
    }
  }
};

WebhookServer::WebhookServer(WebhookOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  load_tls(state_->tls, state_->options);
  state_->bind();
}

WebhookServer::~WebhookServer() {
  stop();
}

std::uint16_t WebhookServer::port() const {
  return state_->port;
}

void WebhookServer::start() {
  const std::lock_guard lock(state_->mutex);
  if (state_->started || state_->stopped) return;
  state_->started = true;
  state_->accept();
  for (int i = 0; i < kThreads; ++i) {
    state_->threads.emplace_back([state = state_.get()] { state->run_thread(); });
  }
  spdlog::info("webhook: serving HTTPS on {} (port {})", state_->options.listen, state_->port);
}

void WebhookServer::stop() {
  const std::lock_guard lock(state_->mutex);
  if (state_->stopped) return;
  state_->stopped = true;
  state_->io->stop();
  for (auto& thread : state_->threads) thread.join();
  state_->threads.clear();
  // Destroying the io_context destroys the pending handlers, and with them
  // every session: open connections close now rather than with the server.
  state_->accept_retry.reset();
  state_->acceptor.reset();
  state_->io.reset();
}

std::uint64_t WebhookServer::requests_served() const {
  return state_->served.load();
}

}  // namespace gantry::karmada
