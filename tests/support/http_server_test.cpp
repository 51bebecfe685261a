// support/http_server.hpp over plain HTTP on loopback, with a real Beast
// client (its HTTPS and mutual-TLS side: tests/karmada/webhook_server_test.cpp).
#include "support/http_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <stdexcept>
#include <string>

namespace gantry::support {
namespace {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

HttpReply echo_route(const HttpRequest& request) {
  if (request.path != "/echo") return text_reply(404, "no such path: " + request.path);
  if (request.method != "GET") return method_not_allowed(request.method, request.path, "GET");
  HttpReply reply = text_reply(200, "auth=" + request.authorization);
  if (request.authorization.empty()) {
    reply = text_reply(401, "who are you");
    reply.www_authenticate = "Bearer realm=\"test\"";
  }
  return reply;
}

class PlainHttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.name = "test";
    options.max_body_bytes = 16;
    server_ = std::make_unique<HttpServer>(options, echo_route);
    server_->start();
  }

  // One request on a fresh connection; the whole response.
  http::response<http::string_body> ask(http::verb verb, const std::string& target,
                                        const std::string& authorization = "",
                                        const std::string& body = "") {
    boost::asio::io_context io;
    tcp::socket socket(io);
    socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), server_->port()));
    http::request<http::string_body> request(verb, target, 11);
    request.set(http::field::host, "127.0.0.1");
    if (!authorization.empty()) request.set(http::field::authorization, authorization);
    request.body() = body;
    request.prepare_payload();
    http::write(socket, request);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(socket, buffer, response);
    return response;
  }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(PlainHttpServerTest, ServesTheRoutesAnswerWithoutTls) {
  EXPECT_FALSE(server_->tls());
  const auto response = ask(http::verb::get, "/echo?x=1", "Bearer abc");
  EXPECT_EQ(response.result_int(), 200);
  EXPECT_EQ(response.body(), "auth=Bearer abc\n");
  EXPECT_EQ(response[http::field::server], "gantry-test");
  EXPECT_EQ(server_->requests_served(), 1u);
}

TEST_F(PlainHttpServerTest, RefusalsCarryTheirHeaders) {
  const auto unauthorized = ask(http::verb::get, "/echo");
  EXPECT_EQ(unauthorized.result_int(), 401);
  EXPECT_EQ(unauthorized[http::field::www_authenticate], "Bearer realm=\"test\"");
  const auto wrong_method = ask(http::verb::post, "/echo", "Bearer abc");
  EXPECT_EQ(wrong_method.result_int(), 405);
  EXPECT_EQ(wrong_method[http::field::allow], "GET");
  EXPECT_EQ(ask(http::verb::get, "/nope").result_int(), 404);
}

TEST_F(PlainHttpServerTest, ABodyOverTheLimitIsRefusedAndTheServerKeepsServing) {
  const auto refused = ask(http::verb::get, "/echo", "Bearer abc", std::string(17, 'x'));
  EXPECT_EQ(refused.result_int(), 413);
  EXPECT_NE(refused.body().find("16 bytes"), std::string::npos) << refused.body();
  EXPECT_EQ(ask(http::verb::get, "/echo", "Bearer abc").result_int(), 200);
}

TEST_F(PlainHttpServerTest, ARouteThatThrowsIsAnInternalErrorNotACrash) {
  server_.reset();
  server_ = std::make_unique<HttpServer>(HttpServerOptions{}, [](const HttpRequest&) -> HttpReply {
    throw std::runtime_error("boom");
  });
  server_->start();
  const auto response = ask(http::verb::get, "/");
  EXPECT_EQ(response.result_int(), 500);
  EXPECT_NE(response.body().find("boom"), std::string::npos);
}

TEST(HttpServerOptions, AClientCaWithoutTlsIsRefusedNamingItsFlag) {
  HttpServerOptions options;
  options.name = "http";
  options.client_ca_pem_file = "/etc/ssl/certs/ca-certificates.crt";
  try {
    HttpServer server(options, echo_route);
    FAIL() << "a client CA was accepted for plain HTTP";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--http-client-ca"), std::string::npos)
        << error.what();
  }
}

TEST(HttpServerOptions, TlsRequiredWithoutACertificateIsRefused) {
  HttpServerOptions options;
  options.name = "webhook";
  options.tls_required = true;
  EXPECT_THROW(HttpServer(options, echo_route), std::runtime_error);
}

}  // namespace
}  // namespace gantry::support
