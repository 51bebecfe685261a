// Watches against a real etcd: events in order, resuming from a revision,
// and a compacted start revision reported as such.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "etcd/client.hpp"
#include "tests/etcd/etcd_server.hpp"
#include "tests/kube/guarded.hpp"

namespace gantry::etcd {
namespace {

using ::testing::ElementsAre;

struct Seen {
  std::vector<Event> events;
  std::optional<WatchResult> result;
};

// "PUT key=value @rev" / "DELETE key @rev", for readable expectations.
std::string describe(const Event& event) {
  if (event.type == Event::Type::kDelete) {
    return "DELETE " + event.kv.key + " @" + std::to_string(event.kv.mod_revision);
  }
  return "PUT " + event.kv.key + "=" + event.kv.value + " @" +
         std::to_string(event.kv.mod_revision);
}

// One watch on its own thread, its events and its end collected; stopped and
// joined when it goes.
class Watcher {
 public:
  Watcher(Client& client, const std::string& prefix, std::int64_t from_revision)
      : thread_([this, &client, prefix, from_revision] {
          const WatchResult result = client.watch(
              prefix, from_revision,
              [this](const WatchBatch& batch) {
                seen_.update([&](Seen& seen) {
                  for (const auto& event : batch.events) seen.events.push_back(event);
                });
              },
              stop_);
          seen_.update([&](Seen& seen) { seen.result = result; });
        }) {}
  ~Watcher() {
    stop_ = true;
    thread_.join();
  }

  // The first `count` events, described; fewer when the guard ran out.
  std::vector<std::string> await_events(std::size_t count) {
    seen_.await([&](const Seen& seen) { return seen.events.size() >= count; });
    std::vector<std::string> out;
    for (const auto& event : seen_.snapshot().events) out.push_back(describe(event));
    return out;
  }
  std::optional<WatchResult> await_end() {
    seen_.await([](const Seen& seen) { return seen.result.has_value(); });
    return seen_.snapshot().result;
  }
  void stop() { stop_ = true; }

 private:
  kube::testing::Guarded<Seen> seen_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class EtcdWatch : public ::testing::Test {
 protected:
  testing::EtcdServer server_;
  Client client_{{server_.endpoint()}};
};

TEST_F(EtcdWatch, DeliversAPutAndADeleteInOrderUntilStopped) {
  // Watching from the next revision: the events arrive whether the watch is
  // set up before or after the writes.
  const std::int64_t start = client_.put("elsewhere", "x") + 1;
  Watcher watcher(client_, "jobs/", start);
  const std::int64_t put = client_.put("jobs/a", "1");
  client_.put("elsewhere", "y");  // outside the prefix: not delivered
  const std::int64_t put_b = client_.put("jobs/b", "2");
  client_.remove("jobs/a");  // the next revision

  EXPECT_THAT(watcher.await_events(3), ElementsAre("PUT jobs/a=1 @" + std::to_string(put),
                                                   "PUT jobs/b=2 @" + std::to_string(put_b),
                                                   "DELETE jobs/a @" + std::to_string(put_b + 1)));
  watcher.stop();
  const auto end = watcher.await_end();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->end, WatchEnd::kStopped);
}

TEST_F(EtcdWatch, ResumesFromARevision) {
  client_.put("jobs/a", "1");
  const std::int64_t second = client_.put("jobs/b", "2");
  const std::int64_t third = client_.put("jobs/a", "3");

  Watcher watcher(client_, "jobs/", second);
  EXPECT_THAT(watcher.await_events(2), ElementsAre("PUT jobs/b=2 @" + std::to_string(second),
                                                   "PUT jobs/a=3 @" + std::to_string(third)));
}

TEST_F(EtcdWatch, AWatchFromACompactedRevisionIsReportedAsCompacted) {
  const std::int64_t first = client_.put("jobs/a", "1");
  client_.put("jobs/a", "2");
  const std::int64_t last = client_.put("jobs/a", "3");
  client_.compact(last);

  Watcher watcher(client_, "jobs/", first);
  const auto end = watcher.await_end();  // etcd ends it on its own
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->end, WatchEnd::kCompacted);
  EXPECT_EQ(end->compact_revision, last);
  EXPECT_TRUE(watcher.await_events(0).empty());
}

}  // namespace
}  // namespace gantry::etcd
