// Reflector against the fixture: list, events, re-list after compaction,
// re-watch after a cut, stopping.
#include "kube/reflector.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <map>

#include "support/free_port.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/guarded.hpp"
#include "tests/kube/test_objects.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using testing::Guarded;
using ::testing::HasSubstr;
using testing::kThings;
using testing::thing;
using testing::thing_path;

// What the handlers saw.
struct Seen {
  std::vector<std::vector<json>> lists;
  std::vector<std::pair<std::string, std::string>> events;  // type, name
  std::vector<std::string> errors;
  bool release_first_list = true;  // false: the first on_list waits until it is true
};

std::vector<std::string> names_of(const std::vector<json>& items) {
  std::vector<std::string> names;
  for (const json& item : items) names.push_back(item["metadata"]["name"]);
  return names;
}

class ReflectorTest : public ::testing::Test {
 protected:
  Reflector::Handlers handlers() {
    return {.on_list =
                [this](const std::vector<json>& items) {
                  seen_.update([&](Seen& seen) { seen.lists.push_back(items); });
                  // Holding the reflector's thread here keeps it from watching yet.
                  seen_.await([](const Seen& seen) { return seen.release_first_list; });
                },
            .on_event =
                [this](const std::string& type, const json& object) {
                  seen_.update([&](Seen& seen) {
                    seen.events.emplace_back(type, object["metadata"]["name"]);
                  });
                },
            .on_error =
                [this](const std::string& error) {
                  seen_.update([&](Seen& seen) { seen.errors.push_back(error); });
                }};
  }

  void create(const std::string& name, int size = 1) {
    ASSERT_EQ(client_.post(kThings, thing(name, size).dump()).status, 201);
  }

  bool await_lists(std::size_t count) {
    return seen_.await([&](const Seen& seen) { return seen.lists.size() >= count; });
  }

  bool await_event(const std::string& type, const std::string& name) {
    return seen_.await([&](const Seen& seen) {
      return std::find(seen.events.begin(), seen.events.end(), std::pair(type, name)) !=
             seen.events.end();
    });
  }

  // Counts the watch requests in the fixture's log and whether each resumed
  // from a resourceVersion.
  std::vector<std::string> watch_queries() {
    std::vector<std::string> queries;
    for (const json& entry : json::parse(client_.get("/fixture/requests").body)) {
      const std::string query = entry["query"].is_string() ? entry["query"] : "";
      if (entry["path"] == kThings && query.find("watch=1") != std::string::npos) {
        queries.push_back(query);
      }
    }
    return queries;
  }

  support::TempDir dir_{"kube-reflector"};
  FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  Client client_{ClusterAccess{.server = fixture_.url()}};
  Guarded<Seen> seen_;
};

TEST_F(ReflectorTest, ListsThenDeliversEvents) {
  create("a");
  create("b");
  Reflector reflector(client_, kThings, handlers());
  reflector.start();
  ASSERT_TRUE(await_lists(1));
  EXPECT_EQ(names_of(seen_.snapshot().lists[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(seen_.snapshot().lists[0][0]["kind"], "Thing");
  EXPECT_EQ(reflector.relists(), 1u);

  create("c");
  ASSERT_EQ(client_.patch(thing_path("a"), R"({"spec":{"size":2}})", PatchType::kMerge).status,
            200);
  ASSERT_EQ(client_.remove(thing_path("b")).status, 200);
  ASSERT_TRUE(await_event("DELETED", "b"));
  EXPECT_EQ(seen_.snapshot().events, (std::vector<std::pair<std::string, std::string>>{
                                         {"ADDED", "c"}, {"MODIFIED", "a"}, {"DELETED", "b"}}));
  EXPECT_EQ(reflector.relists(), 1u);
}

TEST_F(ReflectorTest, RelistsWhenItsResourceVersionWasCompactedAway) {
  create("a");
  seen_.update([](Seen& seen) { seen.release_first_list = false; });
  Reflector reflector(client_, kThings, handlers());
  reflector.start();
  ASSERT_TRUE(await_lists(1));  // listed at the current version, now held before watching
  create("b");
  ASSERT_EQ(client_.post("/fixture/compact", "{}").status, 200);
  seen_.update([](Seen& seen) { seen.release_first_list = true; });

  // Its watch from the listed version gets 410 Expired: it lists again.
  ASSERT_TRUE(await_lists(2));
  EXPECT_EQ(names_of(seen_.snapshot().lists[1]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(reflector.relists(), 2u);

  // And watches on from the new list.
  create("c");
  EXPECT_TRUE(await_event("ADDED", "c"));
}

TEST_F(ReflectorTest, RewatchesFromItsVersionAfterACutWithoutRelisting) {
  Reflector reflector(client_, kThings, handlers());
  reflector.start();
  ASSERT_TRUE(await_lists(1));
  create("a");
  ASSERT_TRUE(await_event("ADDED", "a"));  // the watch is open
  const json cut = json::parse(client_.post("/fixture/cut-watches", "{}").body);
  ASSERT_EQ(cut["cut"], 1);
  create("b");
  ASSERT_TRUE(await_event("ADDED", "b"));

  EXPECT_EQ(reflector.relists(), 1u);
  EXPECT_EQ(seen_.snapshot().lists.size(), 1u);
  EXPECT_FALSE(seen_.snapshot().errors.empty());  // the cut was noticed
  const auto queries = watch_queries();
  ASSERT_EQ(queries.size(), 2u);
  for (const std::string& query : queries) {
    EXPECT_THAT(query, HasSubstr("resourceVersion=")) << "every watch resumes from a version";
  }
  reflector.stop();
}

TEST_F(ReflectorTest, StopReturnsWhileWatching) {
  Reflector reflector(client_, kThings, handlers());
  reflector.start();
  ASSERT_TRUE(await_lists(1));
  create("a");
  ASSERT_TRUE(await_event("ADDED", "a"));
  auto stopped = std::async(std::launch::async, [&] { reflector.stop(); });
  EXPECT_EQ(stopped.wait_for(testing::kAwaitGuard), std::future_status::ready);
}

TEST_F(ReflectorTest, ReportsListErrorsAndStopsWhileBackingOff) {
  Reflector reflector(client_, "/not/an/api/path", handlers());
  reflector.start();
  ASSERT_TRUE(seen_.await([](const Seen& seen) { return seen.errors.size() >= 2; }));
  EXPECT_THAT(seen_.snapshot().errors[0], HasSubstr("HTTP 404"));
  EXPECT_EQ(reflector.relists(), 0u);
  auto stopped = std::async(std::launch::async, [&] { reflector.stop(); });
  EXPECT_EQ(stopped.wait_for(testing::kAwaitGuard), std::future_status::ready);
}

TEST(Reflector, UnreachableServerIsReportedAndStopReturns) {
  Client client(
      ClusterAccess{.server = "http://127.0.0.1:" + std::to_string(support::free_loopback_port())});
  Guarded<std::vector<std::string>> errors;
  Reflector reflector(client, kThings, {.on_error = [&](const std::string& error) {
                        errors.update([&](auto& all) { all.push_back(error); });
                      }});
  reflector.start();
  ASSERT_TRUE(errors.await([](const auto& all) { return !all.empty(); }));
  EXPECT_THAT(errors.snapshot()[0], HasSubstr("connect"));
  auto stopped = std::async(std::launch::async, [&] { reflector.stop(); });
  EXPECT_EQ(stopped.wait_for(testing::kAwaitGuard), std::future_status::ready);
}

}  // namespace
}  // namespace gantry::kube
