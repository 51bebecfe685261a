#include "karmada/decision.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

// 2^53 + 1: a double (what JavaScript or Go's interface{} decode to) rounds it.
constexpr std::uint64_t kBigId = 9007199254740993ULL;

Decision split_decision() {
  Decision decision;
  decision.dispatch_id = kBigId;
  decision.job = "research.ddp-job";
  decision.parts.push_back({"west", 3, {{"master", 1}, {"worker", 2}}});
  decision.parts.push_back({"east", 1, {{"worker", 1}}});
  return decision;
}

json binding_with(const json& annotations, const json& suspension) {
  json binding = {
      {"apiVersion", "work.karmada.io/v1alpha2"},
      {"kind", "ResourceBinding"},
      {"metadata", {{"name", "ddp-job"}, {"namespace", "research"}, {"resourceVersion", "4711"}}},
      {"spec",
       {{"resource",
         {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"namespace", "research"},
          {"name", "ddp"}}}}}};
  if (!annotations.is_null()) binding["metadata"]["annotations"] = annotations;
  if (!suspension.is_null()) binding["spec"]["suspension"] = suspension;
  return binding;
}

TEST(Decision, JsonKeepsTheIdExactAsAString) {
  const std::string text = decision_json(split_decision());
  EXPECT_EQ(text, R"({"dispatchId":"9007199254740993","job":"research.ddp-job","parts":[)"
                  R"({"cluster":"west","replicas":3,"tasks":{"master":1,"worker":2}},)"
                  R"({"cluster":"east","replicas":1,"tasks":{"worker":1}}]})");
}

TEST(Decision, RoundTrip) {
  const Decision decision = parse_decision(decision_json(split_decision()));
  EXPECT_EQ(decision.dispatch_id, kBigId);
  EXPECT_EQ(decision.job, "research.ddp-job");
  ASSERT_EQ(decision.parts.size(), 2u);
  EXPECT_EQ(decision.parts[0].cluster, "west");
  EXPECT_EQ(decision.parts[0].replicas, 3);
  EXPECT_EQ(decision.parts[0].task_replicas,
            (std::map<std::string, std::int32_t>{{"master", 1}, {"worker", 2}}));
  EXPECT_EQ(decision.parts[1].cluster, "east");
  EXPECT_EQ(decision.parts[1].replicas, 1);
  EXPECT_EQ(decision.parts[1].task_replicas, (std::map<std::string, std::int32_t>{{"worker", 1}}));
}

TEST(Decision, MaxIdRoundTrips) {
  Decision decision = split_decision();
  decision.dispatch_id = UINT64_MAX;
  EXPECT_EQ(parse_decision(decision_json(decision)).dispatch_id, UINT64_MAX);
}

void expect_field_error(const std::string& text, const std::string& field) {
  try {
    parse_decision(text);
    ADD_FAILURE() << "expected FieldError for " << text;
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), field) << text;
  }
}

TEST(Decision, MalformedNamesTheAnnotation) {
  expect_field_error("{not json", "gantry.io/decision");
  expect_field_error("[]", "gantry.io/decision");
  expect_field_error(
      R"({"dispatchId":9007199254740993,"job":"j","parts":[{"cluster":"a","replicas":1}]})",
      "gantry.io/decision.dispatchId");
  expect_field_error(R"({"dispatchId":"12x","job":"j","parts":[{"cluster":"a","replicas":1}]})",
                     "gantry.io/decision.dispatchId");
  expect_field_error(R"({"dispatchId":"1","parts":[{"cluster":"a","replicas":1}]})",
                     "gantry.io/decision.job");
  expect_field_error(R"({"dispatchId":"1","job":"j","parts":[]})", "gantry.io/decision.parts");
  expect_field_error(R"({"dispatchId":"1","job":"j","parts":[{"cluster":"a","replicas":"1"}]})",
                     "gantry.io/decision.parts[0].replicas");
  expect_field_error(
      R"({"dispatchId":"1","job":"j","parts":[{"cluster":"a","replicas":1,"tasks":{"w":-1}}]})",
      "gantry.io/decision.parts[0].tasks.w");
}

TEST(Decision, ReleasePatchIsExactly) {
  const json patch = json::parse(release_patch(split_decision(), "4711"));
  const json expected = {
      {"metadata",
       {{"resourceVersion", "4711"},
        {"annotations", {{"gantry.io/decision", decision_json(split_decision())}}}}},
      {"spec",
       {{"clusters",
         json::array({{{"name", "west"}, {"replicas", 3}}, {{"name", "east"}, {"replicas", 1}}})},
        {"suspension", {{"scheduling", false}}}}}};
  EXPECT_EQ(patch, expected) << patch.dump(2);
}

TEST(Decision, SuspendPatchIsExactly) {
  EXPECT_EQ(suspend_patch("4712"),
            R"({"metadata":{"annotations":{"gantry.io/decision":null},"resourceVersion":"4712"},)"
            R"("spec":{"clusters":null,"suspension":{"scheduling":true}}})");
}

TEST(Decision, SuspendedOnlyWhenSchedulingIsTrue) {
  EXPECT_TRUE(is_suspended(binding_with(nullptr, {{"scheduling", true}})));
  EXPECT_FALSE(is_suspended(binding_with(nullptr, {{"scheduling", false}})));
  EXPECT_FALSE(is_suspended(binding_with(nullptr, {{"dispatching", true}})));
  EXPECT_FALSE(is_suspended(binding_with(nullptr, nullptr)));
}

TEST(Decision, SuspensionOfWrongTypeNamesTheField) {
  try {
    is_suspended(binding_with(nullptr, {{"scheduling", "true"}}));
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.suspension.scheduling");
    EXPECT_EQ(e.value(), "true");
  }
}

TEST(Decision, ReleasedDecisionNeedsTheAnnotationAndNoSuspension) {
  const json annotations = {{"gantry.io/decision", decision_json(split_decision())}};
  const std::optional<Decision> released =
      released_decision(binding_with(annotations, {{"scheduling", false}}));
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(released->dispatch_id, kBigId);
  EXPECT_EQ(released->parts.size(), 2u);
  EXPECT_TRUE(released_decision(binding_with(annotations, nullptr)).has_value());
  // Suspended again (reclaim) before the annotation was removed: not released.
  EXPECT_FALSE(released_decision(binding_with(annotations, {{"scheduling", true}})).has_value());
  EXPECT_FALSE(
      released_decision(binding_with({{"other", "x"}}, {{"scheduling", false}})).has_value());
  EXPECT_FALSE(released_decision(binding_with(nullptr, nullptr)).has_value());
}

TEST(Decision, ReleasedDecisionWithBrokenAnnotationThrows) {
  EXPECT_THROW(released_decision(binding_with({{"gantry.io/decision", "{"}}, nullptr)),
               hub::FieldError);
}

}  // namespace
}  // namespace gantry::karmada
