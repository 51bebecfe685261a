// Volcano Queue documents into QueueSpec: every field Gantry acts on, and a
// clear error naming the field and value for each kind of bad input.
#include "config/volcano_queue.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

std::string read_example(const std::string& name) {
  std::ifstream file(std::string(GANTRY_SOURCE_DIR) + "/examples/queues/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

hub::ResourceId id_of(const std::string& name) {
  return hub::ResourceNames::intern(name);
}

// The error's field and message for `yaml`; fails the test when it parses.
hub::FieldError error_of(const std::string& yaml) {
  try {
    parse_volcano_queue(yaml);
  } catch (const hub::FieldError& error) {
    return error;
  }
  ADD_FAILURE() << "parsed without error:\n" << yaml;
  return hub::FieldError("", "", "");
}

std::string queue_with_spec(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\nspec:\n" +
         spec;
}

TEST(VolcanoQueue, ReadsTheExampleQueues) {
  const hub::QueueSpec production = parse_volcano_queue(read_example("production.yaml"));
  EXPECT_EQ(production.name, "production");
  EXPECT_EQ(production.parent, "root");
  EXPECT_EQ(production.weight, 3);
  EXPECT_EQ(production.priority, 10);
  EXPECT_FALSE(production.reclaimable);
  EXPECT_EQ(production.strategy, hub::QueueStrategy::kStrictFifo);
  EXPECT_EQ(production.guarantee.value.gpus(), 8);
  EXPECT_EQ(production.deserved.value.gpus(), 16);
  EXPECT_FALSE(production.capability.has(hub::kGpu));

  const hub::QueueSpec research = parse_volcano_queue(read_example("research.yaml"));
  EXPECT_EQ(research.sla_waiting_ms, 30 * 60 * 1000);
  EXPECT_EQ(research.capability.value.gpus(), 48);
  EXPECT_EQ(research.strategy, hub::QueueStrategy::kBestEffortFifo);
  EXPECT_TRUE(research.open);
}

TEST(VolcanoQueue, ReadsParentStateAndQuantitiesOfEveryResource) {
  const hub::QueueSpec queue = parse_volcano_queue(queue_with_spec(R"(  parent: research
  capability: {cpu: 1500m, memory: 64Gi, nvidia.com/gpu: 16, nvidia.com/gpu/A100: 8}
status:
  state: Closed
)"));
  EXPECT_EQ(queue.parent, "research");
  EXPECT_FALSE(queue.open);
  EXPECT_EQ(queue.capability.value.get(hub::kCpu), 1500);
  EXPECT_EQ(queue.capability.value.get(hub::kMemory), 64LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(queue.capability.value.get(id_of("nvidia.com/gpu/A100")), 8000);
  EXPECT_TRUE(queue.capability.has(id_of("nvidia.com/gpu/A100")));
  EXPECT_FALSE(queue.deserved.has(hub::kGpu));
}

std::string queue_with_annotations(const std::string& annotations) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\n  "
         "annotations: {" +
         annotations + "}\n";
}

TEST(VolcanoQueue, ReadsTheDefaultAndMaximumTimeLimits) {
  const hub::QueueSpec limited = parse_volcano_queue(
      queue_with_annotations("gantry.io/default-time-limit: 1h30m, gantry.io/max-time-limit: 24h"));
  EXPECT_EQ(limited.default_time_limit_ms, 90 * 60 * 1000);
  EXPECT_EQ(limited.max_time_limit_ms, 24 * 3600 * 1000);

  const hub::QueueSpec capped =
      parse_volcano_queue(queue_with_annotations("gantry.io/max-time-limit: 2h"));
  EXPECT_EQ(capped.default_time_limit_ms, 0);
  EXPECT_EQ(capped.max_time_limit_ms, 2 * 3600 * 1000);

  const hub::QueueSpec unlimited = parse_volcano_queue(queue_with_annotations(""));
  EXPECT_EQ(unlimited.default_time_limit_ms, 0);
  EXPECT_EQ(unlimited.max_time_limit_ms, 0);
}

TEST(VolcanoQueue, BadTimeLimitsAreRefusedNamingTheAnnotation) {
  hub::FieldError error = error_of(queue_with_annotations("gantry.io/default-time-limit: soon"));
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/default-time-limit");
  EXPECT_EQ(error.value(), "soon");
  error = error_of(queue_with_annotations("gantry.io/max-time-limit: 876001h"));  // > 100 years
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/max-time-limit");
  EXPECT_EQ(error.value(), "876001h");
  error = error_of(queue_with_annotations("gantry.io/max-time-limit: 90"));
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/max-time-limit");
  EXPECT_EQ(error.value(), "90");
  // A default its own maximum would refuse.
  error = error_of(
      queue_with_annotations("gantry.io/default-time-limit: 2h, gantry.io/max-time-limit: 1h"));
  EXPECT_EQ(error.field(), "metadata.annotations.gantry.io/default-time-limit");
  EXPECT_EQ(error.value(), "2h");
  EXPECT_NE(std::string(error.what()).find("gantry.io/max-time-limit (1h)"), std::string::npos)
      << error.what();
}

TEST(VolcanoQueue, BadInputNamesTheFieldAndValue) {
  struct Case {
    std::string spec;
    std::string field;
    std::string value;
  };
  const std::vector<Case> cases{
      {"  weight: heavy\n", "spec.weight", "heavy"},
      {"  capability: {nvidia.com/gpu: -2}\n", "spec.capability.nvidia.com/gpu", "-2"},
      {"  deserved: {memory: lots}\n", "spec.deserved.memory", "lots"},
      {"  guarantee: {cpu: 4}\n", "spec.guarantee.cpu", ""},
      {"  dequeueStrategy: lifo\n", "spec.dequeueStrategy", "lifo"},
      {"  state: Draining\n", "spec.state", "Draining"},
      {"  reclaimable: sometimes\n", "spec.reclaimable", "sometimes"},
      {"  weigth: 2\n", "spec.weigth", ""},
  };
  for (const Case& c : cases) {
    const hub::FieldError error = error_of(queue_with_spec(c.spec));
    EXPECT_EQ(error.field(), c.field) << c.spec << error.what();
    if (!c.value.empty()) {
      EXPECT_EQ(error.value(), c.value) << c.spec << error.what();
    }
  }
  EXPECT_EQ(error_of("apiVersion: v1\nkind: Queue\nmetadata: {name: q}\n").field(), "apiVersion");
  EXPECT_EQ(error_of("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Job\nmetadata: {name: q}\n")
                .field(),
            "kind");
  EXPECT_EQ(
      error_of("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {}\n").field(),
      "metadata.name");
  EXPECT_EQ(
      error_of("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\n  "
               "annotations: {sla-waiting-time: soon}\n")
          .field(),
      "metadata.annotations.sla-waiting-time");
}

// Shapes a Volcano user may bring, refused with the shape Gantry reads.
TEST(VolcanoQueue, AMisplacedGuaranteeOrADraQuotaSaysWhatToWriteInstead) {
  const hub::FieldError flat = error_of(queue_with_spec("  guarantee: {cpu: 4}\n"));
  EXPECT_EQ(std::string(flat.what()),
            "spec.guarantee.cpu: unknown field; a guarantee lists its resources under resource: "
            "(spec.guarantee.resource.cpu)");
  const hub::FieldError dra = error_of(
      queue_with_spec("  dra:\n    guarantee:\n      gpu.example.com:\n        count: 10\n"));
  EXPECT_EQ(dra.field(), "spec.dra");
  EXPECT_NE(std::string(dra.what()).find("guarantee: {resource: {nvidia.com/gpu: 8}}"),
            std::string::npos)
      << dra.what();
}

}  // namespace
}  // namespace gantry::config
