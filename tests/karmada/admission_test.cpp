#include "karmada/admission.hpp"

#include <gtest/gtest.h>

#include "hub/field_error.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

// Independent of the encoder under test, so that the two cannot agree on a mistake.
std::string base64_decode(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    const std::size_t value = alphabet.find(c);
    if (value == std::string::npos) ADD_FAILURE() << "not base64: " << c;
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

// An AdmissionReview as the Karmada API server sends it for a new binding of
// a Volcano Job under a PropagationPolicy naming `schedulerName: gantry`.
json create_review(const std::string& api_version = "admission.k8s.io/v1") {
  return json::parse(R"({
    "apiVersion": ")" +
                     api_version + R"(",
    "kind": "AdmissionReview",
    "request": {
      "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
      "kind": {"group": "work.karmada.io", "version": "v1alpha2", "kind": "ResourceBinding"},
      "resource": {"group": "work.karmada.io", "version": "v1alpha2", "resource": "resourcebindings"},
      "requestKind": {"group": "work.karmada.io", "version": "v1alpha2", "kind": "ResourceBinding"},
      "requestResource": {"group": "work.karmada.io", "version": "v1alpha2", "resource": "resourcebindings"},
      "name": "ddp-job",
      "namespace": "research",
      "operation": "CREATE",
      "userInfo": {"username": "system:serviceaccount:karmada-system:karmada-controller-manager"},
      "object": {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "ddp-job", "namespace": "research"},
        "spec": {
          "resource": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                       "namespace": "research", "name": "ddp"},
          "replicas": 4,
          "schedulerName": "gantry"
        }
      },
      "oldObject": null,
      "dryRun": false,
      "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    }
  })");
}

json decoded_patch(const json& review) {
  return json::parse(base64_decode(review.at("response").at("patch").get<std::string>()));
}

TEST(Admission, CreateWithoutSuspensionAddsIt) {
  const json response = admission_response(create_review());
  EXPECT_EQ(response["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(response["kind"], "AdmissionReview");
  EXPECT_EQ(response["response"]["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(response["response"]["allowed"], true);
  EXPECT_EQ(response["response"]["patchType"], "JSONPatch");
  const json expected = json::parse(R"([
    {"op": "add", "path": "/spec/suspension", "value": {"scheduling": true}},
    {"op": "add", "path": "/spec/schedulerName", "value": "gantry"}
  ])");
  EXPECT_EQ(decoded_patch(response), expected);
}

TEST(Admission, CreateWithSuspensionSetsOnlyScheduling) {
  json review = create_review();
  review["request"]["object"]["spec"]["suspension"] = {{"dispatching", true}};
  const json expected = json::parse(R"([
    {"op": "add", "path": "/spec/suspension/scheduling", "value": true},
    {"op": "add", "path": "/spec/schedulerName", "value": "gantry"}
  ])");
  EXPECT_EQ(decoded_patch(admission_response(review)), expected);
}

TEST(Admission, V1beta1AnswersInKind) {
  const json response = admission_response(create_review("admission.k8s.io/v1beta1"));
  EXPECT_EQ(response["apiVersion"], "admission.k8s.io/v1beta1");
  EXPECT_EQ(response["response"]["patchType"], "JSONPatch");
}

TEST(Admission, UpdateIsAllowedWithoutPatch) {
  json review = create_review();
  review["request"]["operation"] = "UPDATE";
  review["request"]["oldObject"] = review["request"]["object"];
  const json response = admission_response(review);
  EXPECT_EQ(response["response"],
            (json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}}));
}

TEST(Admission, OtherKindsAreAllowedWithoutPatch) {
  json review = create_review();
  review["request"]["kind"] = {
      {"group", "work.karmada.io"}, {"version", "v1alpha2"}, {"kind", "ClusterResourceBinding"}};
  EXPECT_FALSE(admission_response(review)["response"].contains("patch"));
  review = create_review();
  review["request"]["kind"]["group"] = "example.com";
  EXPECT_FALSE(admission_response(review)["response"].contains("patch"));
}

// A ConfigMap propagated Duplicated, even under a policy naming Gantry, is
// Karmada's to place: no patch, the binding is created as it came.
TEST(Admission, ConfigMapBindingIsNeverSuspended) {
  json review = create_review();
  review["request"]["object"]["spec"]["resource"] = {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"namespace", "research"}, {"name", "settings"}};
  review["request"]["object"]["spec"]["placement"] = {
      {"replicaScheduling", {{"replicaSchedulingType", "Duplicated"}}}};
  EXPECT_EQ(admission_response(review)["response"],
            (json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}}));
  review["request"]["object"]["spec"]["schedulerName"] = "default-scheduler";
  EXPECT_EQ(admission_response(review)["response"],
            (json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}}));
}

TEST(Admission, BindingForKarmadasDefaultSchedulerIsNeverSuspended) {
  json review = create_review();
  review["request"]["object"]["spec"]["schedulerName"] = "default-scheduler";
  EXPECT_EQ(admission_response(review)["response"],
            (json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}}));
  review["request"]["object"]["spec"].erase("schedulerName");
  EXPECT_FALSE(admission_response(review)["response"].contains("patch"));
}

// A binding another tool made with Volcano's queue annotation asks for Gantry
// without the scheduler name: it is suspended and named for Gantry.
TEST(Admission, QueueAnnotationSuspendsAndNamesGantry) {
  json review = create_review();
  review["request"]["object"]["spec"]["schedulerName"] = "default-scheduler";
  review["request"]["object"]["metadata"]["annotations"] = {
      {"scheduling.volcano.sh/queue-name", "research"}};
  const json expected = json::parse(R"([
    {"op": "add", "path": "/spec/suspension", "value": {"scheduling": true}},
    {"op": "add", "path": "/spec/schedulerName", "value": "gantry"}
  ])");
  EXPECT_EQ(decoded_patch(admission_response(review)), expected);
}

TEST(Admission, DeleteWithNullObjectIsAllowed) {
  json review = create_review();
  review["request"]["operation"] = "DELETE";
  review["request"]["object"] = nullptr;
  EXPECT_EQ(admission_response(review)["response"]["allowed"], true);
}

void expect_field_error(const json& review, const std::string& field) {
  try {
    admission_response(review);
    ADD_FAILURE() << "expected FieldError naming " << field;
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), field);
  }
}

TEST(Admission, MalformedReviewNamesTheField) {
  expect_field_error(json::array(), "AdmissionReview");
  expect_field_error(json::object({{"apiVersion", "admission.k8s.io/v1"}}), "request");
  json review = create_review();
  review["request"].erase("uid");
  expect_field_error(review, "request.uid");
  review = create_review();
  review["request"]["uid"] = 42;
  expect_field_error(review, "request.uid");
  review = create_review();
  review["request"]["object"] = "a binding";
  expect_field_error(review, "request.object");
  review = create_review();
  review["request"]["object"] = nullptr;
  expect_field_error(review, "request.object");
  review = create_review();
  review["request"]["object"]["spec"] = json::array();
  expect_field_error(review, "request.object.spec");
}

// A value too deep to dump (built here, as no bounded parse would return it):
// the error quotes a bounded excerpt instead of recursing through it.
TEST(Admission, ADeepNonObjectReviewIsRefusedWithABoundedExcerpt) {
  json deep = json::array();
  json* innermost = &deep;
  for (int level = 0; level < 100'000; ++level) {
    innermost->push_back(json::array());
    innermost = &innermost->back();
  }
  try {
    admission_response(deep);
    FAIL() << "a review that is not an object was accepted";
  } catch (const hub::FieldError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("AdmissionReview: must be a JSON object", 0), 0u)
        << error.what();
    EXPECT_LT(std::string(error.what()).size(), 400u);
  }
}

}  // namespace
}  // namespace gantry::karmada
