// support/http_server.hpp's streamed replies (server-sent events) over plain
// HTTP on loopback, read by a raw socket client.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "support/http_server.hpp"

namespace gantry::support {
namespace {

using tcp = boost::asio::ip::tcp;

// Each /stream request hands its stream to the test, through a promise.
class StreamServer {
 public:
  explicit StreamServer(std::size_t max_streams) {
    HttpServerOptions options;
    options.name = "test";
    options.max_streams = max_streams;
    server_ = std::make_unique<HttpServer>(options, [this](const HttpRequest& request) {
      if (request.path != "/stream") return text_reply(200, "plain");
      HttpReply reply;
      reply.content_type = "text/event-stream";
      reply.stream = [this](std::shared_ptr<HttpStream> stream) {
        std::lock_guard lock(mutex_);
        opened_.set_value(std::move(stream));
      };
      return reply;
    });
    server_->start();
  }

  // The next stream the server opens.
  std::shared_ptr<HttpStream> next_stream() {
    std::future<std::shared_ptr<HttpStream>> opened;
    {
      std::lock_guard lock(mutex_);
      opened = opened_.get_future();
    }
    auto stream = opened.get();
    std::lock_guard lock(mutex_);
    opened_ = {};
    return stream;
  }

  HttpServer& server() { return *server_; }

 private:
  std::mutex mutex_;
  std::promise<std::shared_ptr<HttpStream>> opened_;
  std::unique_ptr<HttpServer> server_;
};

// A client holding one connection; reads until what it awaits has arrived.
class RawClient {
 public:
  RawClient(std::uint16_t port, const std::string& target) : socket_(io_) {
    socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    boost::asio::write(socket_, boost::asio::buffer(request));
  }

  // Everything read so far once it contains `text`; "" at end of stream.
  std::string read_until(const std::string& text) {
    while (received_.find(text) == std::string::npos) {
      char chunk[4096];
      boost::system::error_code ec;
      const std::size_t n = socket_.read_some(boost::asio::buffer(chunk), ec);
      if (ec) return "";
      received_.append(chunk, n);
    }
    return received_;
  }

  // True when the server closed the connection (after what it sent).
  bool ends() {
    char chunk[4096];
    boost::system::error_code ec;
    while (!ec) socket_.read_some(boost::asio::buffer(chunk), ec);
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

  void close() { socket_.close(); }

 private:
  boost::asio::io_context io_;
  tcp::socket socket_;
  std::string received_;
};

TEST(HttpStream, SendsAChunkedEventStreamInOrder) {
  StreamServer server(4);
  RawClient client(server.server().port(), "/stream");
  const auto stream = server.next_stream();
  ASSERT_TRUE(stream->send("data: one\n\n"));
  ASSERT_TRUE(stream->send("data: two\n\n"));
  const std::string received = client.read_until("data: two");
  EXPECT_NE(received.find("HTTP/1.1 200"), std::string::npos) << received;
  EXPECT_NE(received.find("Content-Type: text/event-stream"), std::string::npos) << received;
  EXPECT_NE(received.find("Transfer-Encoding: chunked"), std::string::npos) << received;
  EXPECT_LT(received.find("data: one"), received.find("data: two")) << received;
  EXPECT_EQ(server.server().open_streams(), 1u);
}

TEST(HttpStream, StreamsBeyondTheLimitAreRefused503AndOthersStillServed) {
  StreamServer server(1);
  RawClient first(server.server().port(), "/stream");
  const auto stream = server.next_stream();
  RawClient second(server.server().port(), "/stream");
  EXPECT_NE(second.read_until("\r\n\r\n").find("HTTP/1.1 503"), std::string::npos);
  RawClient plain(server.server().port(), "/plain");
  EXPECT_NE(plain.read_until("plain").find("HTTP/1.1 200"), std::string::npos);
  EXPECT_TRUE(stream->send("data: still\n\n"));
  EXPECT_NE(first.read_until("data: still"), "");
}

TEST(HttpStream, StopEndsTheStreams) {
  StreamServer server(4);
  RawClient client(server.server().port(), "/stream");
  const auto stream = server.next_stream();
  server.server().stop();
  EXPECT_FALSE(stream->send("data: late\n\n"));
  EXPECT_EQ(server.server().open_streams(), 0u);
  EXPECT_TRUE(client.ends());
}

TEST(HttpStream, AClientThatLeavesEndsItsStreamAndFreesItsPlace) {
  StreamServer server(1);
  RawClient client(server.server().port(), "/stream");
  const auto stream = server.next_stream();
  client.close();
  // The server learns of the close only by writing: keep sending (as the
  // keepalive does) until a write fails.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (stream->send(": keepalive\n\n") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(stream->send("data: gone\n\n"));
  EXPECT_EQ(server.server().open_streams(), 0u);
  RawClient next(server.server().port(), "/stream");
  EXPECT_TRUE(server.next_stream()->send("data: next\n\n"));
  EXPECT_NE(next.read_until("data: next"), "");
}

TEST(HttpStream, TheSenderClosesAStreamAfterWhatItSentAndFreesItsPlace) {
  StreamServer server(1);
  RawClient client(server.server().port(), "/stream");
  const auto stream = server.next_stream();
  ASSERT_TRUE(stream->send("data: last words\n\n"));
  stream->close();
  EXPECT_FALSE(stream->send("data: too late\n\n"));
  const std::string received = client.read_until("\r\n0\r\n\r\n");  // the last chunk
  EXPECT_NE(received.find("data: last words"), std::string::npos) << received;
  EXPECT_EQ(received.find("too late"), std::string::npos) << received;
  EXPECT_TRUE(client.ends());
  EXPECT_EQ(server.server().open_streams(), 0u);
  stream->close();  // again: nothing
  RawClient next(server.server().port(), "/stream");
  EXPECT_TRUE(server.next_stream()->send("data: next\n\n"));
  EXPECT_NE(next.read_until("data: next"), "");
}

}  // namespace
}  // namespace gantry::support
