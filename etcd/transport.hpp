// HTTP/1.1 (or HTTPS) to etcd's gRPC JSON gateway over a list of endpoints:
// POSTs a JSON body and hands back the bounded, parsed answer. Keeps a few
// idle keep-alive connections to the endpoint in use and moves to the next
// endpoint when one cannot be connected. Thread-safe.
//
// Only a failure to connect moves a request to another endpoint: once a
// request was sent, etcd may have applied it, and sending a transaction again
// could turn its success into a failed compare.
//
// With credentials, every request carries the token etcd gave for them
// (header Authorization). A request refused because etcd no longer knows the
// token (it expired, or auth was disabled and enabled again) was not applied:
// it is sent once more with a fresh token.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "etcd/access.hpp"
#include "etcd/response_json.hpp"
#include "kube/connection.hpp"
#include "kube/server_url.hpp"

namespace gantry::etcd {

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{2000};  // per endpoint
  std::chrono::milliseconds request_timeout{5000};  // connecting included
  Access access;                                    // TLS (https:// endpoints) and credentials
};

class Transport {
 public:
  struct Endpoint {
    std::string text;  // as given, for messages
    kube::ServerUrl url;
  };
  // A connection and the endpoint it goes to.
  struct Channel {
    std::size_t endpoint = 0;
    std::unique_ptr<kube::Connection> connection;
  };

  // `endpoints`: "http://host:port" or "https://host:port" each; throws
  // std::runtime_error naming one that is not, when there is none, when TLS
  // files are given for a plain http:// endpoint, or when one cannot be
  // read or used.
  Transport(std::vector<std::string> endpoints, TransportOptions options);
  ~Transport();

  // POSTs `body` to `path` and returns decode(answer). Every error (no
  // endpoint reachable, timeout, HTTP or gRPC error, bounds, decode's) is
  // thrown as std::runtime_error, or GrpcError, whose message starts with
  // "etcd endpoint <url>: POST <path>: ".
  template <class Decode>
  auto call(const std::string& path, const nlohmann::json& body, Decode&& decode) {
    std::string endpoint;
    const std::string text = post(path, body, endpoint);
    return with_context(endpoint, path, [&] { return decode(parse_answer(text)); });
  }

  // A streamed call: POSTs `body` with `token` ("" for none: see token())
  // and hands the response body's pieces to on_data until the server ends it
  // (true), the connection breaks (false) or on_data returns false (true).
  // Throws like call when no endpoint can be connected or the answer is not
  // 200, kube::StoppedError once `stop` rose.
  bool stream(const std::string& path, const nlohmann::json& body, const std::string& token,
              const std::function<bool(std::string_view data)>& on_data,
              const std::atomic<bool>& stop, std::string& endpoint);

  // The token requests carry now, authenticating first when there is none;
  // "" without credentials. Throws like call (a GrpcError for a wrong
  // password, or when etcd's authentication is not enabled).
  std::string token();
  // etcd refused `refused` as unknown: the next token() authenticates again,
  // unless another call already did since.
  void token_refused(const std::string& refused);
  // Whether etcd's error says it refused the request's token before applying
  // the request: sending it again with a fresh token is safe.
  static bool refuses_token(std::string_view message);

  // Runs `step`, prefixing any error it throws with the endpoint and path.
  template <class Step>
  static auto with_context(const std::string& endpoint, const std::string& path, Step&& step) {
    try {
      return step();
    } catch (const kube::StoppedError&) {
      throw;
    } catch (const std::exception& error) {
      rethrow_with_context(endpoint, path, error);
    }
  }

 private:
  std::string post(const std::string& path, const nlohmann::json& body, std::string& endpoint);
  std::string post_once(const std::string& path, const nlohmann::json& body,
                        const std::string& token, std::string& endpoint);
  std::string authenticate();
  [[noreturn]] static void throw_error_answer(const std::string& endpoint, const std::string& path,
                                              unsigned status, const std::string& body);
  [[noreturn]] void fail(const Channel& channel, const std::string& path,
                         const boost::beast::error_code& error, const std::atomic<bool>* stop);
  [[noreturn]] static void rethrow_with_context(const std::string& endpoint,
                                                const std::string& path,
                                                const std::exception& error);
  Channel connect(kube::Clock::time_point deadline, const std::atomic<bool>* stop);
  // Reads what follows the header, throwing the error the answer carries
  // when it is not 200.
  bool read_stream_body(Channel& channel, const std::string& path, kube::HttpParser& parser,
                        const std::function<bool(std::string_view data)>& on_data,
                        const std::atomic<bool>& stop);
  Channel take_idle();
  void keep_idle(Channel channel);
  kube::HttpRequest make_request(const Endpoint& endpoint, const std::string& path,
                                 const nlohmann::json& body, const std::string& token) const;

  std::vector<Endpoint> endpoints_;
  const TransportOptions options_;
  std::unique_ptr<boost::asio::ssl::context> tls_;  // for https:// endpoints
  std::mutex token_mutex_;                          // held while authenticating
  std::string token_;
  std::atomic<std::size_t> preferred_{0};  // the endpoint that answered last
  std::mutex idle_mutex_;
  std::vector<Channel> idle_;
};

}  // namespace gantry::etcd
