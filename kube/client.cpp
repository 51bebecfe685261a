#include "kube/client.hpp"

#include <boost/beast/http/read.hpp>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "kube/connection.hpp"
#include "kube/event_lines.hpp"
#include "kube/exec_credential.hpp"
#include "kube/query.hpp"
#include "kube/server_url.hpp"
#include "kube/tls_context.hpp"
#include "kube/token_source.hpp"

namespace gantry::kube {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr auto kRequestTimeout = std::chrono::seconds(30);
// A watch the server should have ended by its timeoutSeconds is given up this
// much later.
constexpr auto kWatchGrace = std::chrono::seconds(30);
constexpr std::size_t kMaxIdleConnections = 4;

const char* content_type(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategic:
      return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

// A kept-alive connection the server had already closed fails this way before
// any byte of the answer; such a request is sent again on a fresh connection.
bool closed_while_idle(const beast::error_code& error) {
  return error == http::error::end_of_stream || error == asio::error::eof ||
         error == asio::error::connection_reset || error == asio::error::broken_pipe ||
         error == asio::ssl::error::stream_truncated;
}

void unlimited_body(HttpParser& parser) {
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // lists can be large
  parser.header_limit(64 * 1024);
}

}  // namespace

const char* to_string(Client::WatchEnd end) {
  switch (end) {
    case Client::WatchEnd::kServerClosed:
      return "server closed";
    case Client::WatchEnd::kBroken:
      return "broken";
    case Client::WatchEnd::kStopped:
      return "stopped";
    case Client::WatchEnd::kHttpError:
      return "http error";
  }
  return "unknown";
}

struct Client::Impl {
  explicit Impl(ClusterAccess access_in)
      : access(std::move(access_in)),
        url(parse_server_url(access.server)),
        tls(url.tls ? make_tls_context(access) : nullptr),
        token(access.bearer_token, access.bearer_token_file),
        exec_token(access.exec ? std::make_unique<ExecTokenSource>(*access.exec) : nullptr) {}

  HttpRequest make_request(http::verb verb, const std::string& path) {
    HttpRequest request(verb, url.base_path + path, 11);
    request.set(http::field::host, url.host_header);
    request.set(http::field::user_agent, "gantry");
    request.set(http::field::accept, "application/json");
    authorize(request);
    return request;
  }

  void authorize(HttpRequest& request) {
    const std::string bearer = exec_token ? exec_token->token() : token.token();
    if (!bearer.empty()) request.set(http::field::authorization, "Bearer " + bearer);
  }

  // A 401 to an exec plugin's token: client-go runs the plugin again and
  // resends once. True when it did (`request` carries the new token).
  bool renew_refused_token(HttpRequest& request) {
    if (!exec_token) return false;
    const std::string sent(request[http::field::authorization]);
    exec_token->refused(sent.substr(std::string("Bearer ").size()));
    authorize(request);
    return true;
  }

  std::unique_ptr<Connection> open(Clock::time_point deadline, const std::atomic<bool>* stop) {
    return Connection::open(url, "kube server " + access.server, tls.get(), deadline, stop);
  }

  // An idle kept-alive connection, or nullptr.
  std::unique_ptr<Connection> take_idle() {
    std::lock_guard lock(pool_mutex);
    if (idle.empty()) return nullptr;
    auto connection = std::move(idle.back());
    idle.pop_back();
    return connection;
  }

  void keep_idle(std::unique_ptr<Connection> connection) {
    std::lock_guard lock(pool_mutex);
    if (idle.size() < kMaxIdleConnections) idle.push_back(std::move(connection));
  }

  [[noreturn]] void fail(const HttpRequest& request, const beast::error_code& error,
                         const std::atomic<bool>* stop) {
    if (stop != nullptr && stop->load()) throw StoppedError();
    throw std::runtime_error("kube server " + access.server + ": " +
                             std::string(request.method_string()) + " " +
                             std::string(request.target()) + ": " + error.message());
  }

  Response exchange(HttpRequest request, const std::atomic<bool>* stop) {
    Response response = exchange_once(request, stop);
    if (response.status == 401 && renew_refused_token(request))
      response = exchange_once(request, stop);
    return response;
  }

  Response exchange_once(HttpRequest& request, const std::atomic<bool>* stop) {
    request.prepare_payload();
    const auto deadline = Clock::now() + kRequestTimeout;
    for (bool first_try = true;; first_try = false) {
      // A retry never takes another idle connection: it might be stale too.
      auto connection = first_try ? take_idle() : nullptr;
      const bool reused = connection != nullptr;
      if (!reused) connection = open(deadline, stop);
      HttpParser parser;
      unlimited_body(parser);
      auto error = connection->write(request, deadline, stop);
      if (!error) error = connection->read_header(parser, deadline, stop);
      if (error && reused && first_try && closed_while_idle(error)) continue;
      if (!error) error = connection->read_rest(parser, deadline, stop);
      if (error) fail(request, error, stop);
      auto response = parser.release();
      if (response.keep_alive()) keep_idle(std::move(connection));
      return Response{static_cast<int>(response.result_int()), std::move(response.body())};
    }
  }

  Response exchange(http::verb verb, const std::string& path, const std::string& body,
                    const char* type) {
    HttpRequest request = make_request(verb, path);
    request.set(http::field::content_type, type);
    request.body() = body;
    return exchange(std::move(request), nullptr);
  }

  // Sends a GET whose answer streams and reads its header; nullopt when that
  // worked (the body is left to read), else how the stream ended.
  std::optional<WatchEnd> start_stream(const std::string& path,
                                       std::unique_ptr<Connection>& connection, HttpParser& parser,
                                       const std::atomic<bool>& stop);
  // Reads a 200 answer's body into on_data as it arrives (false from on_data:
  // the body is bad, kBroken); any other answer's body into http_error.
  WatchEnd read_streamed(Connection& connection, HttpParser& parser,
                         const std::function<bool(std::string_view)>& on_data,
                         const std::atomic<bool>& stop, Clock::time_point body_deadline,
                         Response* http_error);

  const ClusterAccess access;
  const ServerUrl url;
  const std::unique_ptr<asio::ssl::context> tls;
  TokenSource token;
  std::unique_ptr<ExecTokenSource> exec_token;  // instead of `token` when the kubeconfig has one
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Connection>> idle;
};

Client::Client(ClusterAccess access) : impl_(std::make_unique<Impl>(std::move(access))) {}
Client::~Client() = default;

const std::string& Client::server() const {
  return impl_->access.server;
}

Response Client::get(const std::string& path) {
  return impl_->exchange(impl_->make_request(http::verb::get, path), nullptr);
}

Response Client::get(const std::string& path, const std::atomic<bool>& stop) {
  return impl_->exchange(impl_->make_request(http::verb::get, path), &stop);
}

Response Client::post(const std::string& path, const std::string& json) {
  return impl_->exchange(http::verb::post, path, json, "application/json");
}

Response Client::put(const std::string& path, const std::string& json) {
  return impl_->exchange(http::verb::put, path, json, "application/json");
}

Response Client::patch(const std::string& path, const std::string& body, PatchType type) {
  return impl_->exchange(http::verb::patch, path, body, content_type(type));
}

Response Client::remove(const std::string& path) {
  return impl_->exchange(impl_->make_request(http::verb::delete_, path), nullptr);
}

Client::WatchEnd Client::watch(const std::string& path, const std::string& resource_version,
                               const std::function<void(const nlohmann::json& event)>& on_event,
                               const std::atomic<bool>& stop, int timeout_seconds,
                               Response* http_error) {
  std::string parameters = "watch=1";
  if (!resource_version.empty()) {
    parameters += "&resourceVersion=" + encode_query_value(resource_version);
  }
  parameters += "&allowWatchBookmarks=true&timeoutSeconds=" + std::to_string(timeout_seconds);
  std::unique_ptr<Connection> connection;
  HttpParser parser;
  if (const auto failed =
          impl_->start_stream(append_query(path, parameters), connection, parser, stop))
    return *failed;
  EventLines lines(on_event);
  const auto end = impl_->read_streamed(
      *connection, parser, [&](std::string_view data) { return lines.feed(data); }, stop,
      Clock::now() + std::chrono::seconds(timeout_seconds) + kWatchGrace, http_error);
  if (end == WatchEnd::kServerClosed && !lines.finish()) return WatchEnd::kBroken;
  return end;
}

Client::WatchEnd Client::stream(const std::string& path,
                                const std::function<void(std::string_view data)>& on_data,
                                const std::atomic<bool>& stop, Response* http_error) {
  std::unique_ptr<Connection> connection;
  HttpParser parser;
  if (const auto failed = impl_->start_stream(path, connection, parser, stop)) return *failed;
  return impl_->read_streamed(
      *connection, parser,
      [&](std::string_view data) {
        on_data(data);
        return true;
      },
      stop, Clock::time_point::max(), http_error);
}

std::optional<Client::WatchEnd> Client::Impl::start_stream(const std::string& path,
                                                           std::unique_ptr<Connection>& connection,
                                                           HttpParser& parser,
                                                           const std::atomic<bool>& stop) {
  HttpRequest request = make_request(http::verb::get, path);
  request.prepare_payload();
  const auto header_deadline = Clock::now() + kRequestTimeout;
  try {
    connection = open(header_deadline, &stop);
  } catch (const StoppedError&) {
    return WatchEnd::kStopped;
  }
  unlimited_body(parser);
  auto error = connection->write(request, header_deadline, &stop);
  if (!error) error = connection->read_header(parser, header_deadline, &stop);
  if (stop.load()) return WatchEnd::kStopped;
  if (error) return WatchEnd::kBroken;
  return std::nullopt;
}

Client::WatchEnd Client::Impl::read_streamed(Connection& connection, HttpParser& parser,
                                             const std::function<bool(std::string_view)>& on_data,
                                             const std::atomic<bool>& stop,
                                             Clock::time_point body_deadline,
                                             Response* http_error) {
  const bool streaming = parser.get().result() == http::status::ok;
  std::string chunked_body;  // an error answer's body, when chunked
  bool bad_data = false;
  auto on_chunk = [&](std::uint64_t, beast::string_view data, beast::error_code& error) {
    if (!streaming) {
      chunked_body.append(data.data(), data.size());
    } else if (!on_data(std::string_view(data.data(), data.size()))) {
      bad_data = true;
      error = http::error::bad_chunk;
    }
    return data.size();
  };
  parser.on_chunk_body(on_chunk);

  const auto deadline = streaming ? body_deadline : Clock::now() + kRequestTimeout;
  const auto error = connection.read_rest(parser, deadline, &stop);
  if (stop.load()) return WatchEnd::kStopped;
  if (!streaming) {
    if (http_error != nullptr) {
      *http_error =
          Response{static_cast<int>(parser.get().result_int()), parser.get().body() + chunked_body};
    }
    return WatchEnd::kHttpError;
  }
  if (error || bad_data) return WatchEnd::kBroken;
  // A body that was not chunked (a proxy's doing) arrives whole.
  if (!on_data(parser.get().body())) return WatchEnd::kBroken;
  return WatchEnd::kServerClosed;
}

}  // namespace gantry::kube
