// Client requests against the fixture API server over plain HTTP.
#include "kube/client.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "support/free_port.hpp"
#include "support/temp_dir.hpp"
#include "tests/kube/fixture_server.hpp"
#include "tests/kube/test_objects.hpp"

namespace gantry::kube {
namespace {

using json = nlohmann::json;
using testing::FixtureServer;
using ::testing::HasSubstr;
using testing::kThings;
using testing::thing;
using testing::thing_path;

class ClientOverHttp : public ::testing::Test {
 protected:
  ClusterAccess access() const { return ClusterAccess{.server = fixture_.url()}; }

  support::TempDir dir_{"kube-client"};
  FixtureServer fixture_{{}, dir_.path() / "fixture.log"};
  Client client_{access()};
};

TEST_F(ClientOverHttp, CreatesGetsAndLists) {
  const Response created = client_.post(kThings, thing("a", 1).dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const json stored = json::parse(created.body);
  EXPECT_FALSE(stored["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_FALSE(stored["metadata"]["uid"].get<std::string>().empty());

  const Response got = client_.get(thing_path("a"));
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(json::parse(got.body)["spec"]["size"], 1);

  ASSERT_EQ(client_.post(kThings, thing("b", 2).dump()).status, 201);
  const Response listed = client_.get(kThings + "?fieldSelector=metadata.name%3Db");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json list = json::parse(listed.body);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "b");
}

TEST_F(ClientOverHttp, ErrorStatusesAreReturnedNotThrown) {
  const Response missing = client_.get(thing_path("nope"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["reason"], "NotFound");
  ASSERT_EQ(client_.post(kThings, thing("a").dump()).status, 201);
  EXPECT_EQ(client_.post(kThings, thing("a").dump()).status, 409);  // AlreadyExists
}

TEST_F(ClientOverHttp, MergeJsonAndStrategicPatchesSendTheirContentTypes) {
  ASSERT_EQ(client_.post(kThings, thing("a", 1).dump()).status, 201);
  const Response merged =
      client_.patch(thing_path("a"), R"({"spec":{"size":2,"color":"red"}})", PatchType::kMerge);
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(json::parse(merged.body)["spec"]["size"], 2);

  const Response replaced =
      client_.patch(thing_path("a"), R"([{"op":"test","path":"/spec/size","value":2},
                          {"op":"replace","path":"/spec/color","value":"blue"}])",
                    PatchType::kJson);
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(json::parse(replaced.body)["spec"]["color"], "blue");

  const Response strategic = client_.patch(
      thing_path("a"), R"({"metadata":{"labels":{"team":"x"}}})", PatchType::kStrategic);
  ASSERT_EQ(strategic.status, 200) << strategic.body;

  const json log = json::parse(client_.get("/fixture/requests").body);
  std::vector<std::string> patch_types;
  for (const json& entry : log) {
    if (entry["method"] == "PATCH") patch_types.push_back(entry["content_type"]);
  }
  EXPECT_EQ(patch_types,
            (std::vector<std::string>{"application/merge-patch+json", "application/json-patch+json",
                                      "application/strategic-merge-patch+json"}));
}

TEST_F(ClientOverHttp, FailedJsonPatchTestIs422) {
  ASSERT_EQ(client_.post(kThings, thing("a", 1).dump()).status, 201);
  const Response failed = client_.patch(
      thing_path("a"), R"([{"op":"test","path":"/spec/size","value":5}])", PatchType::kJson);
  EXPECT_EQ(failed.status, 422);
}

TEST_F(ClientOverHttp, StaleResourceVersionIs409) {
  const Response created = client_.post(kThings, thing("a", 1).dump());
  ASSERT_EQ(created.status, 201);
  const std::string first_version = testing::resource_version(created.body);
  ASSERT_EQ(client_.patch(thing_path("a"), R"({"spec":{"size":2}})", PatchType::kMerge).status,
            200);

  const json stale_patch = {{"metadata", {{"resourceVersion", first_version}}},
                            {"spec", {{"size", 3}}}};
  const Response patched = client_.patch(thing_path("a"), stale_patch.dump(), PatchType::kMerge);
  EXPECT_EQ(patched.status, 409);
  EXPECT_EQ(json::parse(patched.body)["reason"], "Conflict");

  json stale_object = json::parse(created.body);
  stale_object["spec"]["size"] = 4;
  EXPECT_EQ(client_.put(thing_path("a"), stale_object.dump()).status, 409);
  EXPECT_EQ(json::parse(client_.get(thing_path("a")).body)["spec"]["size"], 2);
}

TEST_F(ClientOverHttp, RemoveDeletes) {
  ASSERT_EQ(client_.post(kThings, thing("a").dump()).status, 201);
  EXPECT_EQ(client_.remove(thing_path("a")).status, 200);
  EXPECT_EQ(client_.get(thing_path("a")).status, 404);
}

TEST_F(ClientOverHttp, ManyThreadsShareOneClient) {
  ASSERT_EQ(client_.post(kThings, thing("a").dump()).status, 201);
  constexpr int kThreads = 4, kCalls = 25;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        if (client_.get(thing_path("a")).status != 200) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

TEST(Client, ConnectionRefusedThrowsNamingTheServer) {
  const std::string server = "http://127.0.0.1:" + std::to_string(support::free_loopback_port());
  Client client(ClusterAccess{.server = server});
  try {
    client.get("/api/v1/nodes");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("kube server " + server));
    EXPECT_THAT(error.what(), HasSubstr("connect"));
  }
}

TEST(Client, BadServerUrlIsNamed) {
  try {
    Client client(ClusterAccess{.server = "localhost:6443"});
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("\"localhost:6443\""));
  }
}

class ClientWithToken : public ::testing::Test {
 protected:
  support::TempDir dir_{"kube-token"};
  FixtureServer fixture_{{"--token", "s3cret"}, dir_.path() / "fixture.log"};
};

TEST_F(ClientWithToken, BearerTokenIsAcceptedAndItsAbsenceIs401) {
  Client with_token(ClusterAccess{.server = fixture_.url(), .bearer_token = "s3cret"});
  EXPECT_EQ(with_token.get(kThings).status, 200);
  Client wrong_token(ClusterAccess{.server = fixture_.url(), .bearer_token = "guess"});
  EXPECT_EQ(wrong_token.get(kThings).status, 401);
  Client no_token(ClusterAccess{.server = fixture_.url()});
  const Response refused = no_token.get(kThings);
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(json::parse(refused.body)["kind"], "Status");
}

}  // namespace
}  // namespace gantry::kube
