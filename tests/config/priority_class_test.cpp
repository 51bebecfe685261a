// PriorityClass documents (scheduling.k8s.io/v1) and the hub's registry.
#include "config/priority_class.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

std::string document(const std::string& body, const std::string& name = "urgent") {
  return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: " + name +
         "\n" + body;
}

void expect_refused(const std::string& yaml, const std::string& field, const std::string& value) {
  try {
    parse_priority_class(yaml);
    ADD_FAILURE() << "accepted; expected an error on " << field;
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(value), std::string::npos) << e.what();
  }
}

TEST(PriorityClassParse, ReadsEveryField) {
  const PriorityClass parsed = parse_priority_class(
      document("value: 1000000\nglobalDefault: true\npreemptionPolicy: Never\n"
               "description: \"On-call work.\"\n"));
  EXPECT_EQ(parsed.name, "urgent");
  EXPECT_EQ(parsed.value, 1000000);
  EXPECT_TRUE(parsed.global_default);
  EXPECT_FALSE(parsed.preempts);
  EXPECT_EQ(parsed.description, "On-call work.");
}

TEST(PriorityClassParse, DefaultsAreKubernetes) {
  const PriorityClass parsed = parse_priority_class(document("value: -5\n"));
  EXPECT_FALSE(parsed.global_default);
  EXPECT_TRUE(parsed.preempts) << "PreemptLowerPriority is the default";
  EXPECT_EQ(parsed.value, -5);
}

TEST(PriorityClassParse, ErrorsNameTheFieldAndValue) {
  expect_refused(document("value: 1000000001\n"), "value", "1000000001");
  expect_refused(document("value: high\n"), "value", "high");
  expect_refused(document("globalDefault: false\n"), "value", "required");
  expect_refused(document("value: 1\npreemptionPolicy: Sometimes\n"), "preemptionPolicy",
                 "Sometimes");
  expect_refused(document("value: 1\nglobalDefault: yes-please\n"), "globalDefault",
                 "yes-please");
  expect_refused(document("value: 1\nweight: 3\n"), "weight", "");
  expect_refused(document("value: 1\n", "Urgent_Jobs"), "metadata.name", "Urgent_Jobs");
  expect_refused(document("value: 1\n", "system-mine"), "metadata.name", "system-mine");
  expect_refused("apiVersion: scheduling.k8s.io/v1beta1\nkind: PriorityClass\nmetadata:\n"
                 "  name: a\nvalue: 1\n",
                 "apiVersion", "v1beta1");
}

TEST(PriorityClassParse, KindOfADocument) {
  EXPECT_EQ(document_kind(document("value: 1\n")), "PriorityClass");
  EXPECT_EQ(document_kind("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"), "Queue");
  EXPECT_THROW(document_kind("- a\n- b\n"), hub::FieldError);
}

PriorityClass make_class(const std::string& name, std::int32_t value, bool global_default = false,
                         bool preempts = true) {
  PriorityClass priority_class;
  priority_class.name = name;
  priority_class.value = value;
  priority_class.global_default = global_default;
  priority_class.preempts = preempts;
  return priority_class;
}

TEST(PriorityClassRegistry, KnowsTheBuiltInsAndAppliedClasses) {
  PriorityClassRegistry registry;
  EXPECT_EQ(registry.resolve("high-priority")->value, 1000);
  EXPECT_FALSE(registry.resolve("urgent").has_value());
  EXPECT_TRUE(registry.apply(make_class("urgent", 5000, false, false)));
  EXPECT_EQ(registry.resolve("urgent")->value, 5000);
  EXPECT_FALSE(registry.resolve("urgent")->preempts);
  EXPECT_EQ(registry.values().at("urgent"), 5000);
  EXPECT_FALSE(registry.apply(make_class("urgent", 5000))) << "applied again: configured";
  EXPECT_EQ(registry.list().size(), 4u);
}

TEST(PriorityClassRegistry, AJobWithoutAClassGetsTheGlobalDefault) {
  PriorityClassRegistry registry;
  EXPECT_EQ(registry.resolve("")->value, 0);
  EXPECT_EQ(registry.values().at(""), 0);
  registry.apply(make_class("batch", 50, true));
  EXPECT_EQ(registry.resolve("")->value, 50);
  EXPECT_EQ(registry.values().at(""), 50);
  const std::string job =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\nspec:\n  tasks:\n"
      "  - replicas: 1\n    name: t\n    template:\n      spec:\n        containers:\n"
      "        - name: c\n          image: busybox\n";
  EXPECT_EQ(parse_volcano_job(job, registry.values()).priority, 50);
}

TEST(PriorityClassRegistry, RefusesASecondGlobalDefault) {
  PriorityClassRegistry registry;
  registry.apply(make_class("batch", 50, true));
  try {
    registry.apply(make_class("other", 60, true));
    ADD_FAILURE() << "two global defaults accepted";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "globalDefault");
    EXPECT_NE(std::string(e.what()).find("batch"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(registry.apply(make_class("batch", 50, true))) << "the same class again";
}

TEST(PriorityClassRegistry, ValueIsImmutable) {
  PriorityClassRegistry registry;
  registry.apply(make_class("urgent", 10));
  try {
    registry.apply(make_class("urgent", 20));
    ADD_FAILURE() << "value changed";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "value");
  }
}

TEST(PriorityClassRegistry, DeletingRestoresABuiltInAndRefusesUnknownNames) {
  PriorityClassRegistry registry;
  registry.apply(make_class("high-priority", 7));
  EXPECT_EQ(registry.resolve("high-priority")->value, 7) << "an applied class overrides";
  registry.remove("high-priority");
  EXPECT_EQ(registry.resolve("high-priority")->value, 1000);
  EXPECT_THROW(registry.remove("high-priority"), hub::FieldError) << "built-ins stay";
  EXPECT_THROW(registry.remove("nope"), hub::FieldError);
}

TEST(PriorityClassParse, EveryExampleParses) {
  const auto dir = std::filesystem::path(GANTRY_SOURCE_DIR) / "examples" / "priorityclasses";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream file(entry.path());
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_NO_THROW(parse_priority_class(text.str())) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 2);
}

TEST(VolcanoQueueFields, ExtendClustersAffinityAndClosing) {
  const hub::QueueSpec queue = parse_volcano_queue(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\nspec:\n"
      "  extendClusters:\n  - name: east\n    weight: 2\n    capacity:\n      cpu: 4\n"
      "  affinity:\n    nodeGroupAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "      - g1\nstatus:\n  state: Closing\n");
  ASSERT_EQ(queue.extend_clusters.size(), 1u);
  EXPECT_EQ(queue.extend_clusters[0], "east weight=2 cpu=4");
  EXPECT_NE(queue.affinity.find("g1"), std::string::npos) << queue.affinity;
  EXPECT_FALSE(queue.open);
  try {
    parse_volcano_queue(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\nspec:\n"
        "  extendClusters:\n  - weight: 2\n");
    ADD_FAILURE() << "an extend cluster without a name accepted";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.extendClusters[0].name");
  }
}

}  // namespace
}  // namespace gantry::config
