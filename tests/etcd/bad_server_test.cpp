// The client against a server that is not a healthy etcd (support::HttpServer
// answering what a test tells it): garbage, proxies' error pages, broken
// streams are refused with errors naming the endpoint, never taken as data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "etcd/client.hpp"
#include "support/http_server.hpp"

namespace gantry::etcd {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Answers every request with `reply`; a streamed reply sends `lines`.
class BadServer {
 public:
  explicit BadServer(support::HttpReply reply, std::vector<std::string> lines = {})
      : server_(support::HttpServerOptions{}, [this, reply, lines](const support::HttpRequest&) {
          support::HttpReply answer = reply;
          if (!lines.empty()) answer.stream = [this, lines](auto stream) { open(stream, lines); };
          return answer;
        }) {
    server_.start();
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
  // Once a stream was opened and its lines queued.
  void await_stream() { streamed_.get_future().wait(); }
  void stop() { server_.stop(); }

 private:
  void open(const std::shared_ptr<support::HttpStream>& stream,
            const std::vector<std::string>& lines) {
    for (const auto& line : lines) stream->send(line + "\n");
    streamed_.set_value();
  }

  std::promise<void> streamed_;
  support::HttpServer server_;
};

support::HttpReply json_reply(std::string body) {
  support::HttpReply reply;
  reply.content_type = "application/json";
  reply.body = std::move(body);
  return reply;
}

support::HttpReply stream_reply() {
  support::HttpReply reply = json_reply("");
  reply.stream = [](auto) {};  // replaced by BadServer with its lines
  return reply;
}

const std::string kCreated = R"({"result":{"header":{"revision":"1"},"created":true}})";

WatchResult watch_all(Client& client) {
  std::atomic<bool> stop{false};
  return client.watch(
      "", 0, [](const WatchBatch&) {}, stop);
}

TEST(EtcdBadServer, AProxyErrorPageIsAnHttpErrorWithAnExcerpt) {
  BadServer server(support::text_reply(502, "<html>bad gateway</html>"));
  Client client({server.endpoint()});
  EXPECT_THAT([&] { client.get("k"); },
              ThrowsMessage<std::runtime_error>(
                  HasSubstr("etcd endpoint " + server.endpoint() +
                            ": POST /v3/kv/range: HTTP 502: <html>bad gateway</html>")));
}

TEST(EtcdBadServer, GarbageAndMalformedFieldsAreRefusedNamingTheEndpoint) {
  BadServer garbage(json_reply("not json at all"));
  Client garbage_client({garbage.endpoint()});
  EXPECT_THAT([&] { garbage_client.get("k"); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr("etcd endpoint " + garbage.endpoint() + ": POST /v3/kv/range: "),
                        HasSubstr("not a JSON object: \"not json at all\""))));

  BadServer malformed(json_reply(R"({"header":{"revision":"12abc"}})"));
  Client malformed_client({malformed.endpoint()});
  EXPECT_THAT([&] { malformed_client.put("k", "v"); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr("etcd endpoint " + malformed.endpoint() + ": POST /v3/kv/put: "),
                        HasSubstr("\"revision\" is not an int64"))));
}

TEST(EtcdBadServer, AGarbageWatchMessageEndsTheWatchWithAnError) {
  BadServer server(stream_reply(), {kCreated, "{\"result\": [unterminated"});
  Client client({server.endpoint()});
  EXPECT_THAT([&] { watch_all(client); },
              ThrowsMessage<std::runtime_error>(
                  AllOf(HasSubstr("etcd endpoint " + server.endpoint() + ": POST /v3/watch: "),
                        HasSubstr("not a JSON object"))));
}

TEST(EtcdBadServer, AnErrorInsideTheWatchStreamIsAGrpcError) {
  BadServer server(stream_reply(),
                   {kCreated, R"({"error":{"grpc_code":14,"message":"etcdserver: no leader"}})"});
  Client client({server.endpoint()});
  try {
    watch_all(client);
    FAIL() << "no error";
  } catch (const GrpcError& error) {
    EXPECT_EQ(error.code(), 14);
    EXPECT_THAT(error.what(), HasSubstr("POST /v3/watch: etcdserver: no leader"));
  }
}

TEST(EtcdBadServer, AWatchStreamTheServerDropsEndsAsBroken) {
  BadServer server(stream_reply(), {kCreated});
  Client client({server.endpoint()});
  std::promise<std::string> ended;  // how the watch ended, or what it threw
  std::thread watcher([&] {
    try {
      ended.set_value(to_string(watch_all(client).end));
    } catch (const std::exception& error) {
      ended.set_value(std::string("threw: ") + error.what());
    }
  });
  server.await_stream();
  server.stop();  // abandons the connection mid-stream
  EXPECT_EQ(ended.get_future().get(), "broken");
  watcher.join();
}

}  // namespace
}  // namespace gantry::etcd
