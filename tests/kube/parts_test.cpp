// The client's small parts: server URLs, base64, watch line splitting.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "kube/event_lines.hpp"
#include "kube/query.hpp"
#include "kube/server_url.hpp"

namespace gantry::kube {
namespace {

TEST(ServerUrl, HttpsWithPortAndPrefix) {
  const ServerUrl url = parse_server_url("https://api.example:6443/k8s/clusters/c1/");
  EXPECT_TRUE(url.tls);
  EXPECT_EQ(url.host, "api.example");
  EXPECT_EQ(url.port, "6443");
  EXPECT_EQ(url.host_header, "api.example:6443");
  EXPECT_EQ(url.base_path, "/k8s/clusters/c1");
  EXPECT_FALSE(url.host_is_ip);
}

TEST(ServerUrl, DefaultPortsAndIpLiterals) {
  EXPECT_EQ(parse_server_url("https://10.0.0.1").port, "443");
  EXPECT_TRUE(parse_server_url("https://10.0.0.1").host_is_ip);
  const ServerUrl v6 = parse_server_url("http://[::1]:8080");
  EXPECT_FALSE(v6.tls);
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, "8080");
  EXPECT_EQ(v6.host_header, "[::1]:8080");
  EXPECT_TRUE(v6.host_is_ip);
  EXPECT_EQ(parse_server_url("http://h").port, "80");
}

TEST(ServerUrl, RejectsWhatIsNoHttpUrlNamingIt) {
  for (const char* bad :
       {"ftp://h", "h:6443", "https://", "https://h:0", "https://h:99999", "https://h:x1"}) {
    try {
      parse_server_url(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
}

TEST(Query, AppendsWithTheRightSeparatorAndEncodesValues) {
  EXPECT_EQ(append_query("/a", "x=1"), "/a?x=1");
  EXPECT_EQ(append_query("/a?y=2", "x=1"), "/a?y=2&x=1");
  EXPECT_EQ(encode_query_value("eyJ2+/=="), "eyJ2%2B%2F%3D%3D");
}

TEST(EventLines, JoinsPiecesAndSplitsLines) {
  std::vector<std::string> types;
  const EventLines::Handler handler = [&](const nlohmann::json& event) {
    types.push_back(event["type"].get<std::string>());
  };
  EventLines lines(handler);
  EXPECT_TRUE(lines.feed(R"({"type":"ADDED","object":{}})"
                         "\n"
                         R"({"type":"MOD)"));
  EXPECT_EQ(types, std::vector<std::string>{"ADDED"});
  EXPECT_TRUE(lines.feed("IFIED\",\"object\":{}}\r\n\n{\"type\":\"DELETED\"}"));
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "MODIFIED"}));
  EXPECT_TRUE(lines.finish());  // the last line had no newline
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  EXPECT_EQ(lines.events(), 3u);
}

TEST(EventLines, RejectsALineThatIsNotJson) {
  const EventLines::Handler handler = [](const nlohmann::json&) {};
  EventLines lines(handler);
  EXPECT_FALSE(lines.feed("<html>\n"));
}

}  // namespace
}  // namespace gantry::kube
