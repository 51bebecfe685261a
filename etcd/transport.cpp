#include "etcd/transport.hpp"

#include <boost/asio/ssl/error.hpp>
#include <boost/beast/http/error.hpp>
#include <utility>

#include "etcd/limits.hpp"
#include "etcd/request_json.hpp"
#include "etcd/response_json.hpp"
#include "kube/read_file.hpp"
#include "kube/tls_context.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::etcd {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using kube::Clock;

namespace {

constexpr std::size_t kMaxIdleConnections = 4;
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

// A kept-alive connection the server had already closed fails this way before
// any byte of the answer; etcd never saw the request, so it is sent again on
// a fresh connection.
bool closed_while_idle(const beast::error_code& error) {
  return error == http::error::end_of_stream || error == asio::error::eof ||
         error == asio::error::connection_reset || error == asio::error::broken_pipe;
}

Transport::Endpoint parse_endpoint(const std::string& text) {
  const std::string problem =
      "etcd endpoint \"" + text + "\": not an http://host:port or https://host:port URL";
  if (text.rfind("http://", 0) != 0 && text.rfind("https://", 0) != 0) {
    throw std::runtime_error(problem);
  }
  try {
    return Transport::Endpoint{text, kube::parse_server_url(text)};
  } catch (const std::exception&) {
    throw std::runtime_error(problem);
  }
}

std::string read_pem(const std::string& what, const std::string& file) {
  auto text = kube::read_whole_file(file);
  if (!text) throw std::runtime_error("etcd: cannot read the " + what + " " + file);
  return std::move(*text);
}

// The context every https:// endpoint shares: etcd's certificate verified
// against the CA file (or the system's CAs), the client certificate offered.
std::unique_ptr<asio::ssl::context> make_tls(const TlsFiles& files) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    throw std::runtime_error(
        "etcd: a client certificate needs both the certificate and its key file");
  }
  kube::ClusterAccess access;
  kube::TlsInputNames names;
  if (!files.ca_file.empty()) {
    access.ca_pem = read_pem("CA certificate", files.ca_file);
    names.ca = "CA certificate " + files.ca_file;
  }
  if (!files.cert_file.empty()) {
    access.client_cert_pem = read_pem("client certificate", files.cert_file);
    access.client_key_pem = read_pem("client key", files.key_file);
    names.client_cert = "client certificate " + files.cert_file;
    names.client_key = "client key " + files.key_file;
  }
  return kube::make_tls_context(access, "etcd", names);
}

// etcd (3.4, 3.5) refuses every gateway request from a client certificate
// with a CommonName once its authentication is on, with this text and 400.
constexpr std::string_view kCommonNameRefusal =
    "CommonName of client sending a request against gateway";

std::string error_text(const beast::error_code& error) {
  if (error == http::error::body_limit) {
    return "answer over the limit of " + std::to_string(kMaxAnswerBytes) + " bytes";
  }
  if (error == beast::error::timeout) return "no answer in time";
  // etcd's --client-cert-auth ends the connection with an alert after the
  // handshake (TLS 1.3) when the client showed no certificate it trusts.
  if (error.category() == asio::error::get_ssl_category() &&
      error.message().find("alert") != std::string::npos &&
      error.message().find("certificate") != std::string::npos) {
    return error.message() +
           " (etcd refused this client's certificate, or that it showed none: give one "
           "signed by a CA etcd's --trusted-ca-file holds)";
  }
  return error.message();
}

}  // namespace

Transport::Transport(std::vector<std::string> endpoints, TransportOptions options)
    : options_(std::move(options)) {
  if (endpoints.empty()) throw std::runtime_error("etcd: no endpoints");
  bool any_tls = false;
  for (const auto& text : endpoints) {
    endpoints_.push_back(parse_endpoint(text));
    // TLS files with a plain endpoint would be silently unused: the operator
    // would believe the connection is encrypted.
    if (!endpoints_.back().url.tls && options_.access.tls.any()) {
      throw std::runtime_error("etcd endpoint " + text +
                               ": TLS files given for a plain http:// endpoint");
    }
    any_tls = any_tls || endpoints_.back().url.tls;
  }
  if (any_tls) tls_ = make_tls(options_.access.tls);
}

Transport::~Transport() = default;

kube::HttpRequest Transport::make_request(const Endpoint& endpoint, const std::string& path,
                                          const nlohmann::json& body,
                                          const std::string& token) const {
  kube::HttpRequest request(http::verb::post, endpoint.url.base_path + path, 11);
  request.set(http::field::host, endpoint.url.host_header);
  request.set(http::field::user_agent, "gantry");
  request.set(http::field::content_type, "application/json");
  // The gateway passes Accept on as metadata "grpcgateway-accept", by which
  // etcd (--client-cert-auth) knows a request came through the gateway: without
  // it, a request without a token would be taken as coming from the user the
  // gateway's own certificate names (its CommonName).
  request.set(http::field::accept, "application/json");
  // etcd reads the token from gRPC metadata "authorization", which the
  // gateway makes of this header (etcd's clients send it as "token").
  if (!token.empty()) request.set(http::field::authorization, token);
  request.body() = body.dump();
  request.prepare_payload();
  return request;
}

// Tries the endpoints from the one that answered last, in order; each gets
// the connect timeout, all of them together the request's deadline.
Transport::Channel Transport::connect(Clock::time_point deadline, const std::atomic<bool>* stop) {
  const std::size_t first = preferred_.load();
  std::string failures;
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    const std::size_t index = (first + i) % endpoints_.size();
    const Endpoint& endpoint = endpoints_[index];
    try {
      auto connection =
          kube::Connection::open(endpoint.url, "etcd endpoint " + endpoint.text, tls_.get(),
                                 std::min(deadline, Clock::now() + options_.connect_timeout), stop);
      preferred_.store(index);
      return Channel{index, std::move(connection)};
    } catch (const kube::StoppedError&) {
      throw;
    } catch (const std::exception& error) {
      failures += std::string(failures.empty() ? "" : "; ") + error.what();
    }
  }
  throw std::runtime_error("etcd: no endpoint could be connected: " + failures);
}

Transport::Channel Transport::take_idle() {
  std::lock_guard lock(idle_mutex_);
  if (idle_.empty()) return {};
  Channel channel = std::move(idle_.back());
  idle_.pop_back();
  return channel;
}

// Only connections to the preferred endpoint are kept, so that a failover
// does not keep sending requests to the endpoint that was left.
void Transport::keep_idle(Channel channel) {
  std::lock_guard lock(idle_mutex_);
  if (channel.endpoint == preferred_.load() && idle_.size() < kMaxIdleConnections) {
    idle_.push_back(std::move(channel));
  }
}

void Transport::fail(const Channel& channel, const std::string& path,
                     const beast::error_code& error, const std::atomic<bool>* stop) {
  if (stop != nullptr && stop->load()) throw kube::StoppedError();
  std::string hint;
  // An etcd serving only https drops a plaintext request unanswered.
  if (!endpoints_[channel.endpoint].url.tls && closed_while_idle(error)) {
    hint =
        " (etcd closed the connection without an answer: if it serves https only, give "
        "https:// endpoints and its CA)";
  }
  throw std::runtime_error("etcd endpoint " + endpoints_[channel.endpoint].text + ": POST " + path +
                           ": " + error_text(error) + hint);
}

bool Transport::refuses_token(std::string_view message) {
  // "etcdserver: invalid auth token" (unary calls) or "rpc error: code =
  // Unauthenticated desc = etcdserver: invalid auth token" (a watch's cancel
  // reason); "revision of auth store is old": the auth store changed between
  // etcd's token check and the request's apply, which refused it.
  return message.find("invalid auth token") != std::string_view::npos ||
         message.find("revision of auth store is old") != std::string_view::npos;
}

std::string Transport::token() {
  if (options_.access.auth.user.empty()) return "";
  std::lock_guard lock(token_mutex_);
  if (token_.empty()) token_ = authenticate();
  return token_;
}

void Transport::token_refused(const std::string& refused) {
  std::lock_guard lock(token_mutex_);
  if (token_ == refused) token_.clear();
}

std::string Transport::authenticate() {
  static const std::string kPath = "/v3/auth/authenticate";
  const Credentials& credentials = options_.access.auth;
  std::string endpoint;
  try {
    const std::string text = post_once(
        kPath, authenticate_request(credentials.user, credentials.password), "", endpoint);
    return with_context(endpoint, kPath, [&] { return decode_token(parse_answer(text)); });
  } catch (const GrpcError& error) {
    // "authentication failed, invalid user ID or password" names no user.
    throw GrpcError(std::string(error.what()) + " (etcd user \"" + credentials.user + "\")",
                    error.code());
  }
}

std::string Transport::post(const std::string& path, const nlohmann::json& body,
                            std::string& endpoint) {
  const std::string used = token();
  try {
    return post_once(path, body, used, endpoint);
  } catch (const GrpcError& error) {
    if (used.empty() || !refuses_token(error.what())) throw;
  }
  token_refused(used);
  return post_once(path, body, token(), endpoint);
}

std::string Transport::post_once(const std::string& path, const nlohmann::json& body,
                                 const std::string& token, std::string& endpoint) {
  const auto deadline = Clock::now() + options_.request_timeout;
  for (bool first_try = true;; first_try = false) {
    // A retry never takes another idle connection: it might be stale too.
    Channel channel = first_try ? take_idle() : Channel{};
    const bool reused = channel.connection != nullptr;
    if (!reused) channel = connect(deadline, nullptr);
    auto request = make_request(endpoints_[channel.endpoint], path, body, token);
    kube::HttpParser parser;
    parser.body_limit(kMaxAnswerBytes);
    parser.header_limit(kMaxHeaderBytes);
    auto error = channel.connection->write(request, deadline, nullptr);
    if (!error) error = channel.connection->read_header(parser, deadline, nullptr);
    if (error && reused && closed_while_idle(error)) continue;
    if (!error) error = channel.connection->read_rest(parser, deadline, nullptr);
    if (error) fail(channel, path, error, nullptr);
    auto response = parser.release();
    endpoint = endpoints_[channel.endpoint].text;
    if (response.keep_alive()) keep_idle(std::move(channel));
    if (response.result() != http::status::ok) {
      throw_error_answer(endpoint, path, response.result_int(), response.body());
    }
    return std::move(response.body());
  }
}

// The gateway answers a gRPC error with its JSON and a 4xx/5xx status; any
// other answer that is not 200 did not come from etcd's gateway.
void Transport::throw_error_answer(const std::string& endpoint, const std::string& path,
                                   unsigned status, const std::string& body) {
  try {
    parse_answer(body);
  } catch (const GrpcError& error) {
    rethrow_with_context(endpoint, path, error);
  } catch (const std::exception&) {
  }
  std::string hint;
  if (body.find(kCommonNameRefusal) != std::string::npos) {
    hint =
        " (with authentication on, etcd refuses gateway requests whose client certificate "
        "has a CommonName: use a client certificate without one; the etcd user comes from "
        "the user and password)";
  }
  throw std::runtime_error("etcd endpoint " + endpoint + ": POST " + path + ": HTTP " +
                           std::to_string(status) + ": " + support::text_excerpt(body, 80) + hint);
}

void Transport::rethrow_with_context(const std::string& endpoint, const std::string& path,
                                     const std::exception& error) {
  const std::string message = "etcd endpoint " + endpoint + ": POST " + path + ": " + error.what();
  if (const auto* grpc = dynamic_cast<const GrpcError*>(&error)) {
    throw GrpcError(message, grpc->code());
  }
  throw std::runtime_error(message);
}

bool Transport::stream(const std::string& path, const nlohmann::json& body,
                       const std::string& token,
                       const std::function<bool(std::string_view data)>& on_data,
                       const std::atomic<bool>& stop, std::string& endpoint) {
  const auto header_deadline = Clock::now() + options_.request_timeout;
  Channel channel = connect(header_deadline, &stop);
  endpoint = endpoints_[channel.endpoint].text;
  auto request = make_request(endpoints_[channel.endpoint], path, body, token);
  kube::HttpParser parser;
  parser.header_limit(kMaxHeaderBytes);
  auto error = channel.connection->write(request, header_deadline, &stop);
  if (!error) error = channel.connection->read_header(parser, header_deadline, &stop);
  if (error) fail(channel, path, error, &stop);
  return read_stream_body(channel, path, parser, on_data, stop);
}

bool Transport::read_stream_body(Channel& channel, const std::string& path,
                                 kube::HttpParser& parser,
                                 const std::function<bool(std::string_view data)>& on_data,
                                 const std::atomic<bool>& stop) {
  if (parser.get().result() != http::status::ok) {
    // An error answer is short: read it whole, bounded, and throw what it says.
    parser.body_limit(kMaxAnswerBytes);
    const auto error =
        channel.connection->read_rest(parser, Clock::now() + options_.request_timeout, &stop);
    if (error) fail(channel, path, error, &stop);
    throw_error_answer(endpoints_[channel.endpoint].text, path, parser.get().result_int(),
                       parser.get().body());
  }
  // The stream lasts as long as the caller wants it: its length is not
  // bounded, each message is (by on_data's reader).
  parser.body_limit(boost::none);
  bool ended_by_reader = false;
  auto on_chunk = [&](std::uint64_t, beast::string_view data, beast::error_code& error) {
    if (!on_data(std::string_view(data.data(), data.size()))) {
      ended_by_reader = true;
      error = asio::error::operation_aborted;  // ends the read
    }
    return data.size();
  };
  parser.on_chunk_body(on_chunk);
  // No deadline: a watch may see nothing for hours. The stop flag ends it,
  // TCP keep-alive probes (kube::Connection) notice a peer that vanished.
  const auto error = channel.connection->read_rest(parser, Clock::time_point::max(), &stop);
  if (ended_by_reader) return true;
  if (stop.load()) throw kube::StoppedError();
  if (error) return false;
  // A body that was not chunked arrives whole.
  if (!parser.chunked() && !parser.get().body().empty()) on_data(parser.get().body());
  return true;
}

}  // namespace gantry::etcd
