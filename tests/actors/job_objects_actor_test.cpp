// Job objects through the hub's actors (issue 12): `delete job` of a pending,
// a running and a finished job (its store rows go, its name is free again),
// spec.ttlSecondsAfterFinished firing on the test clock, and a name made
// from metadata.generateName, which outlives a restart.
#include <sqlite3.h>

#include "hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

// `job_yaml` with spec.ttlSecondsAfterFinished: `seconds`.
std::string ttl_job_yaml(const std::string& name, int seconds) {
  std::string yaml = job_yaml(name, 1, 1);
  yaml.insert(yaml.find("spec:\n") + 6,
              "  ttlSecondsAfterFinished: " + std::to_string(seconds) + "\n");
  return yaml;
}

// `job_yaml` with metadata.generateName: `prefix` instead of a name.
std::string generated_job_yaml(const std::string& prefix) {
  std::string yaml = job_yaml("placeholder", 1, 1);
  const std::string name = "  name: placeholder\n";
  yaml.replace(yaml.find(name), name.size(), "  generateName: " + prefix + "\n");
  return yaml;
}

class JobObjectsActorTest : public HubActorsTest {
 protected:
  protocol::AdminResult delete_job(const std::string& name) {
    return ask<protocol::AdminResult>(protocol::DeleteRequest{"job", name});
  }

  bool listed(const std::string& name) {
    const auto reply = ask<protocol::ListReply>(protocol::ListRequest{"jobs"});
    return std::any_of(reply.jobs.begin(), reply.jobs.end(),
                       [&](const protocol::JobInfo& job) { return job.name == name; });
  }

  bool described(const std::string& name) {
    return ask<protocol::DescribeReply>(protocol::DescribeRequest{"job", name}).ok;
  }

  // Rows the store holds for the job: its jobs row and its dispatch record.
  std::int64_t store_rows(const std::string& name) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir.path() / "gantry.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT (SELECT COUNT(*) FROM jobs WHERE name = ?1) + "
                                 "(SELECT COUNT(*) FROM dispatches d JOIN jobs j ON "
                                 "d.job_row = j.row WHERE j.name = ?1) + "
                                 "(SELECT COUNT(*) FROM dispatches WHERE job_row NOT IN "
                                 "(SELECT row FROM jobs));",
                                 -1, &statement, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(statement, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW);
    const std::int64_t rows = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return rows;
  }

  void expect_gone(const std::string& name) {
    EXPECT_FALSE(listed(name)) << name;
    EXPECT_FALSE(described(name)) << name;
    EXPECT_EQ(store_rows(name), 0) << name;
  }

  // The name is free: a job of that name is accepted and runs.
  void expect_reusable(const std::string& name) {
    ASSERT_TRUE(submit(job_yaml(name, 1, 1)).ok);
    const auto [peer, prepare] = only_prepare();
    EXPECT_EQ(prepare.job.name, name);
    EXPECT_EQ(store_rows(name), 2) << "a row and a dispatch record: the new job's";
  }
};

TEST_F(JobObjectsActorTest, DeletingAnUnknownJobNamesIt) {
  const auto result = delete_job("ghost");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "job \"ghost\" not found");
}

TEST_F(JobObjectsActorTest, APendingJobLeavesItsQueueAndIsForgotten) {
  ASSERT_TRUE(submit(job_yaml("waits", 1, 1)).ok);  // no cluster: stays pending
  EXPECT_EQ(store_rows("waits"), 1);
  const auto result = delete_job("waits");
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.message, "job/waits deleted");
  expect_gone("waits");
  EXPECT_EQ(ask<protocol::DescribeReply>(protocol::DescribeRequest{"queue", "default"}).events,
            std::vector<std::string>{"0 pending, 0 dispatched, 0 running"});
  register_cluster("west", 1, 8);
  sent();
  expect_reusable("waits");
}

TEST_F(JobObjectsActorTest, AFinishedJobIsForgottenAtOnce) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(job_yaml("done", 1, 1));
  report(peer, prepare, "Completed");
  EXPECT_EQ(job("done").phase, "Completed");
  // Read from the store once its end is stored (issue 28), its name still taken.
  const auto again = submit(job_yaml("done", 1, 1));
  EXPECT_FALSE(again.ok) << "taken while it is kept";
  EXPECT_EQ(again.error,
            "metadata.name: an ended job with this name exists (gantryctl delete job done frees "
            "the name) (got \"done\")");

  ASSERT_TRUE(delete_job("done").ok);
  expect_gone("done");
  expect_reusable("done");
}

TEST_F(JobObjectsActorTest, ARunningJobIsStoppedFirstAndForgottenOnceItsPartStopped) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(job_yaml("runs", 1, 1));
  ASSERT_TRUE(delete_job("runs").ok);

  const auto [cancel_peer, cancel] = only<protocol::Cancel>();
  EXPECT_EQ(cancel_peer, peer);
  EXPECT_EQ(cancel.dispatch_id, prepare.dispatch_id);
  EXPECT_TRUE(listed("runs")) << "kept while its replicas stop";
  EXPECT_FALSE(submit(job_yaml("runs", 1, 1)).ok) << "its name too";
  EXPECT_TRUE(contains(job_events("runs"), "deleted: forgotten once its replicas have stopped"));

  report(peer, prepare, "Aborted", "cancelled by the hub");
  expect_gone("runs");
  expect_reusable("runs");
}

TEST_F(JobObjectsActorTest, ADeletedJobWhoseAgentNeverAnswersIsForgottenAfterTheLostGrace) {
  register_cluster("west", 1, 8);
  run(job_yaml("stuck", 1, 1));
  ASSERT_TRUE(delete_job("stuck").ok);
  for (int i = 0; i < kLostTicks - 1; ++i) tick_beating({"west"});
  EXPECT_TRUE(listed("stuck"));
  tick_beating({"west"});
  expect_gone("stuck");
}

TEST_F(JobObjectsActorTest, TtlForgetsAFinishedJobWhenItRunsOutOnTheHubsClock) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(ttl_job_yaml("brief", 3));
  for (int i = 0; i < 5; ++i) tick_beating({"west"});  // running counts for nothing
  report(peer, prepare, "Completed");
  tick_beating({"west"});
  tick_beating({"west"});
  EXPECT_TRUE(listed("brief")) << "2 s after it finished";
  EXPECT_EQ(store_rows("brief"), 2);
  tick_beating({"west"});
  expect_gone("brief");
  expect_reusable("brief");
}

TEST_F(JobObjectsActorTest, TtlZeroForgetsAJobAsItFinishes) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(ttl_job_yaml("instant", 0));
  EXPECT_TRUE(listed("instant"));
  report(peer, prepare, "Failed", "exit 1");
  expect_gone("instant");
}

TEST_F(JobObjectsActorTest, GenerateNameSubmitAnswersTheMadeNameWhichAgentsAndRestartsKeep) {
  register_cluster("west", 2, 8);
  sent();
  const auto first = submit(generated_job_yaml("sweep-"));
  const auto second = submit(generated_job_yaml("sweep-"));
  ASSERT_TRUE(first.ok) << first.error;
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_TRUE(first.job.starts_with("sweep-")) << first.job;
  EXPECT_EQ(first.job.size(), 11u) << first.job;
  EXPECT_NE(first.job, second.job);
  EXPECT_TRUE(listed(first.job));
  const auto prepares = frames_of<protocol::Prepare>(sent());
  ASSERT_EQ(prepares.size(), 2u);
  EXPECT_EQ(prepares[0].second.job.name, first.job) << "the agent runs it under that name";
  EXPECT_EQ(store_rows(first.job), 2);

  stop();
  start();
  EXPECT_TRUE(listed(first.job)) << "back from the store under the same name";
  EXPECT_TRUE(listed(second.job));
}

TEST_F(JobObjectsActorTest, ADeletedJobStaysDeletedAcrossARestart) {
  register_cluster("west", 1, 8);
  const auto [peer, prepare] = run(job_yaml("deleted", 1, 1));
  ASSERT_TRUE(delete_job("deleted").ok);
  report(peer, prepare, "Aborted");
  ASSERT_TRUE(submit(job_yaml("kept", 1, 1)).ok);
  stop();
  start();
  EXPECT_FALSE(listed("deleted"));
  EXPECT_TRUE(listed("kept"));
}

}  // namespace
}  // namespace gantry::actors
