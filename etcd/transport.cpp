#include "etcd/transport.hpp"

#include <boost/beast/http/error.hpp>
#include <utility>

#include "etcd/limits.hpp"
#include "etcd/response_json.hpp"
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
  if (text.rfind("http://", 0) != 0) {
    throw std::runtime_error("etcd endpoint \"" + text + "\": not an http://host:port URL");
  }
  try {
    return Transport::Endpoint{text, kube::parse_server_url(text)};
  } catch (const std::exception&) {
    throw std::runtime_error("etcd endpoint \"" + text + "\": not an http://host:port URL");
  }
}

std::string error_text(const beast::error_code& error) {
  if (error == http::error::body_limit) {
    return "answer over the limit of " + std::to_string(kMaxAnswerBytes) + " bytes";
  }
  if (error == beast::error::timeout) return "no answer in time";
  return error.message();
}

}  // namespace

Transport::Transport(std::vector<std::string> endpoints, TransportOptions options)
    : options_(options) {
  if (endpoints.empty()) throw std::runtime_error("etcd: no endpoints");
  for (const auto& text : endpoints) endpoints_.push_back(parse_endpoint(text));
}

Transport::~Transport() = default;

kube::HttpRequest Transport::make_request(const Endpoint& endpoint, const std::string& path,
                                          const nlohmann::json& body) const {
  kube::HttpRequest request(http::verb::post, endpoint.url.base_path + path, 11);
  request.set(http::field::host, endpoint.url.host_header);
  request.set(http::field::user_agent, "gantry");
  request.set(http::field::content_type, "application/json");
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
          kube::Connection::open(endpoint.url, "etcd endpoint " + endpoint.text, nullptr,
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
  throw std::runtime_error("etcd endpoint " + endpoints_[channel.endpoint].text + ": POST " + path +
                           ": " + error_text(error));
}

std::string Transport::post(const std::string& path, const nlohmann::json& body,
                            std::string& endpoint) {
  const auto deadline = Clock::now() + options_.request_timeout;
  for (bool first_try = true;; first_try = false) {
    // A retry never takes another idle connection: it might be stale too.
    Channel channel = first_try ? take_idle() : Channel{};
    const bool reused = channel.connection != nullptr;
    if (!reused) channel = connect(deadline, nullptr);
    auto request = make_request(endpoints_[channel.endpoint], path, body);
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
  throw std::runtime_error("etcd endpoint " + endpoint + ": POST " + path + ": HTTP " +
                           std::to_string(status) + ": " + support::text_excerpt(body, 80));
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
                       const std::function<bool(std::string_view data)>& on_data,
                       const std::atomic<bool>& stop, std::string& endpoint) {
  const auto header_deadline = Clock::now() + options_.request_timeout;
  Channel channel = connect(header_deadline, &stop);
  endpoint = endpoints_[channel.endpoint].text;
  auto request = make_request(endpoints_[channel.endpoint], path, body);
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
