// Client::watch against the fixture: events, the ways a stream ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <optional>

#include "kube/client.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/guarded.hpp"
#include "tests/kube/test_objects.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using testing::Guarded;
using testing::kAwaitGuard;
using testing::kThings;
using testing::thing;
using testing::thing_path;
using WatchEnd = Client::WatchEnd;

// Runs one watch on its own thread and collects its events.
class WatchRun {
 public:
  WatchRun(Client& client, std::string path, std::string version, int timeout_seconds = 300) {
    ended_ = std::async(std::launch::async, [=, this, &client] {
      return client.watch(
          path, version,
          [this](const json& event) { events_.update([&](auto& all) { all.push_back(event); }); },
          stop_, timeout_seconds, &http_error_);
    });
  }
  ~WatchRun() {
    stop_ = true;
    if (ended_.valid()) ended_.wait();
  }

  // Bookmarks (sent on idle streams) do not count.
  bool await_events(std::size_t count) {
    return events_.await([&](const auto& all) {
      return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [](const json& event) {
               return event["type"] != "BOOKMARK";
             })) >= count;
    });
  }
  std::vector<json> events() { return events_.snapshot(); }
  // How the watch ended; nullopt when it did not end within the guard.
  std::optional<WatchEnd> end() {
    if (ended_.wait_for(kAwaitGuard) != std::future_status::ready) return std::nullopt;
    return ended_.get();
  }
  void stop() { stop_ = true; }
  const Response& http_error() const { return http_error_; }

 private:
  Guarded<std::vector<json>> events_;
  std::atomic<bool> stop_{false};
  Response http_error_;
  std::future<WatchEnd> ended_;
};

class Watch : public ::testing::Test {
 protected:
  std::string create(const std::string& name, int size = 1) {
    const Response created = client_.post(kThings, thing(name, size).dump());
    EXPECT_EQ(created.status, 201) << created.body;
    return testing::resource_version(created.body);
  }

  support::TempDir dir_{"kube-watch"};
  FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  Client client_{ClusterAccess{.server = fixture_.url()}};
};

TEST_F(Watch, ReceivesEventsAfterTheResourceVersionUntilStopped) {
  const std::string version = create("a");
  WatchRun run(client_, kThings, version);
  create("b");
  ASSERT_EQ(client_.patch(thing_path("a"), R"({"spec":{"size":7}})", PatchType::kMerge).status,
            200);
  ASSERT_EQ(client_.remove(thing_path("b")).status, 200);

  ASSERT_TRUE(run.await_events(3));
  std::vector<std::pair<std::string, std::string>> seen;
  for (const json& event : run.events()) {
    if (event["type"] == "BOOKMARK") continue;
    seen.emplace_back(event["type"], event["object"]["metadata"]["name"]);
  }
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {"ADDED", "b"}, {"MODIFIED", "a"}, {"DELETED", "b"}}));

  run.stop();
  EXPECT_EQ(run.end(), WatchEnd::kStopped);

  // The request carried what the apiserver expects of a watch.
  const json log = json::parse(client_.get("/fixture/requests").body);
  std::string watch_query;
  for (const json& entry : log) {
    if (entry["method"] == "GET" && entry["path"] == kThings) watch_query = entry["query"];
  }
  EXPECT_EQ(watch_query,
            "watch=1&resourceVersion=" + version + "&allowWatchBookmarks=true&timeoutSeconds=300");
}

TEST_F(Watch, WithoutResourceVersionStartsWithTheCurrentObjects) {
  create("a");
  WatchRun run(client_, kThings + "?fieldSelector=metadata.name%3Da", "");
  create("b");  // not selected
  ASSERT_TRUE(run.await_events(1));
  const json first = run.events()[0];
  EXPECT_EQ(first["type"], "ADDED");
  EXPECT_EQ(first["object"]["metadata"]["name"], "a");
}

TEST_F(Watch, ServerEndingTheStreamIsServerClosed) {
  WatchRun run(client_, kThings, create("a"), /*timeout_seconds=*/1);
  EXPECT_EQ(run.end(), WatchEnd::kServerClosed);
}

TEST_F(Watch, CutConnectionIsBroken) {
  create("a");
  WatchRun run(client_, kThings, "0");
  ASSERT_TRUE(run.await_events(1));  // the stream is open
  const Response cut = client_.post("/fixture/cut-watches", "{}");
  ASSERT_EQ(json::parse(cut.body)["cut"], 1);
  EXPECT_EQ(run.end(), WatchEnd::kBroken);
}

TEST_F(Watch, CompactedResourceVersionGivesA410ErrorEvent) {
  const std::string old_version = create("a");
  create("b");
  ASSERT_EQ(client_.post("/fixture/compact", "{}").status, 200);
  WatchRun run(client_, kThings, old_version);
  EXPECT_EQ(run.end(), WatchEnd::kServerClosed);
  const auto events = run.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
}

TEST_F(Watch, HttpErrorIsReportedWithItsBody) {
  WatchRun run(client_, "/not/an/api/path", "");
  EXPECT_EQ(run.end(), WatchEnd::kHttpError);
  EXPECT_EQ(run.http_error().status, 404);
  EXPECT_EQ(json::parse(run.http_error().body)["kind"], "Status");
}

}  // namespace
}  // namespace gantry::kube
