// PriorityClasses through the hub's actors: apply, get, delete, jobs naming
// them, and the store keeping them across a restart.
#include <gtest/gtest.h>

#include "tests/actors/hub_actors_fixture.hpp"

namespace gantry::actors {
namespace {

const char* kUrgentClass =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: urgent\n"
    "value: 100000\npreemptionPolicy: Never\ndescription: on-call work\n";

std::string job_in_class(const std::string& name, const std::string& priority_class) {
  std::string yaml = job_yaml(name, 1, 1);
  yaml.insert(yaml.find("spec:\n") + 6, "  priorityClassName: " + priority_class + "\n");
  return yaml;
}

class PriorityClassActorTest : public HubActorsTest {
 protected:
  std::vector<protocol::PriorityClassInfo> classes() {
    return ask<protocol::ListReply>(protocol::ListRequest{"priorityclasses"}).priority_classes;
  }
  const protocol::PriorityClassInfo* find_class(const std::string& name) {
    listed_ = classes();
    for (const auto& priority_class : listed_)
      if (priority_class.name == name) return &priority_class;
    return nullptr;
  }
  std::vector<protocol::PriorityClassInfo> listed_;
};

TEST_F(PriorityClassActorTest, AppliedClassIsListedAndUsableByJobs) {
  ASSERT_NE(find_class("high-priority"), nullptr) << "the built-ins are there from the start";
  EXPECT_FALSE(submit(job_in_class("early", "urgent")).ok);
  const auto applied = ask<protocol::AdminResult>(protocol::ApplyRequest{kUrgentClass});
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_EQ(applied.message, "priorityclass/urgent created");
  const protocol::PriorityClassInfo* urgent = find_class("urgent");
  ASSERT_NE(urgent, nullptr);
  EXPECT_EQ(urgent->value, 100000);
  EXPECT_EQ(urgent->preemption_policy, "Never");
  EXPECT_TRUE(submit(job_in_class("late", "urgent")).ok);
}

TEST_F(PriorityClassActorTest, ClassesOutliveARestartAndDeletionToo) {
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::ApplyRequest{kUrgentClass}).ok);
  stop();
  start();
  ASSERT_NE(find_class("urgent"), nullptr);
  EXPECT_TRUE(submit(job_in_class("after-restart", "urgent")).ok);
  const auto deleted =
      ask<protocol::AdminResult>(protocol::DeleteRequest{"priorityclass", "urgent"});
  ASSERT_TRUE(deleted.ok) << deleted.error;
  const protocol::SubmitJobReply refused = submit(job_in_class("refused", "urgent"));
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("spec.priorityClassName"), std::string::npos) << refused.error;
  stop();
  start();
  EXPECT_EQ(find_class("urgent"), nullptr) << "the deletion is recorded too";
}

TEST_F(PriorityClassActorTest, RefusalsNameTheField) {
  const std::string second_default =
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: b\nvalue: 1\n"
      "globalDefault: true\n";
  ASSERT_TRUE(ask<protocol::AdminResult>(protocol::ApplyRequest{
                  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: a\n"
                  "value: 1\nglobalDefault: true\n"})
                  .ok);
  const auto refused = ask<protocol::AdminResult>(protocol::ApplyRequest{second_default});
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("globalDefault"), std::string::npos) << refused.error;
  const auto built_in =
      ask<protocol::AdminResult>(protocol::DeleteRequest{"priorityclass", "high-priority"});
  EXPECT_FALSE(built_in.ok);
  EXPECT_NE(built_in.error.find("built-in"), std::string::npos) << built_in.error;
}

}  // namespace
}  // namespace gantry::actors
