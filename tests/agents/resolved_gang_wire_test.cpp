// Prepare carries the gang as the hub resolved it (Prepare::gang): for every
// example job and every Volcano compatibility job, the gang an agent admits
// after the Prepare crossed the wire is the hub's, field by field: requests
// (GPU products counted as the core counts them), selectors, tolerations,
// partitions, topology and minAvailable.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "agents/dispatch_gang.hpp"
#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"
#include "hub/gang_wire.hpp"
#include "hub/job_request.hpp"
#include "hub/topology.hpp"
#include "protocol/envelope.hpp"

namespace gantry::agents {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GANTRY_SOURCE_DIR;

std::vector<fs::path> job_manifests() {
  std::vector<fs::path> files;
  for (const fs::path& dir :
       {kSource / "examples" / "jobs", kSource / "tests" / "config" / "volcano_compat" / "jobs"})
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The gang the core keeps for the job: the resolver's, GPU products counted.
hub::GangShape hub_gang(const protocol::JobSpec& job) {
  hub::JobRequest request = hub::make_job_request(std::make_shared<protocol::JobSpec>(job));
  hub::count_selected_gpu_products(request.gang);
  return request.gang;
}

// A whole-gang Prepare as the hub builds it, after a trip over the wire.
protocol::Prepare sent_prepare(const protocol::JobSpec& job, const hub::GangShape& gang) {
  protocol::Prepare prepare;
  prepare.dispatch_id = 1;
  prepare.epoch = 1;
  prepare.job = job;
  prepare.gang = hub::gang_to_wire(gang);
  for (const hub::TaskShape& task : gang.tasks) prepare.task_replicas[task.name] = task.replicas;
  if (gang.topology_aware()) prepare.topology_tier_labels = {"rack", "zone", "region"};
  protocol::DecodeError error;
  const auto envelope = protocol::decode_envelope(protocol::encode(prepare, 1), error);
  EXPECT_TRUE(envelope) << error.message;
  if (!envelope) return {};
  const auto decoded = protocol::decode_payload<protocol::Prepare>(*envelope, error);
  EXPECT_TRUE(decoded) << error.message;
  return decoded.value_or(protocol::Prepare{});
}

void expect_same_constraint(const hub::TopologyConstraint& hub_side,
                            const hub::TopologyConstraint& agent_side) {
  EXPECT_EQ(agent_side.mode, hub_side.mode);
  EXPECT_EQ(agent_side.highest_tier, hub_side.highest_tier);
}

void expect_same_gang(const hub::GangShape& hub_side, const hub::GangShape& agent_side) {
  ASSERT_EQ(agent_side.tasks.size(), hub_side.tasks.size());
  for (std::size_t t = 0; t < hub_side.tasks.size(); ++t) {
    SCOPED_TRACE(hub_side.tasks[t].name);
    const hub::TaskShape& sent = hub_side.tasks[t];
    const hub::TaskShape& got = agent_side.tasks[t];
    EXPECT_EQ(got.name, sent.name);
    EXPECT_EQ(got.replicas, sent.replicas);
    EXPECT_EQ(got.per_replica, sent.per_replica);
    EXPECT_EQ(got.node_selector, sent.node_selector);
    EXPECT_EQ(got.tolerations, sent.tolerations);
    EXPECT_EQ(got.partition_size, sent.partition_size);
    EXPECT_EQ(got.min_partitions, sent.min_partitions);
    expect_same_constraint(sent.partition_topology, got.partition_topology);
  }
  EXPECT_EQ(agent_side.min_available, hub_side.min_available);
  expect_same_constraint(hub_side.topology, agent_side.topology);
}

TEST(ResolvedGangWire, EveryExampleAndCompatJobIsAdmittedAsTheHubResolvedIt) {
  const std::vector<fs::path> files = job_manifests();
  ASSERT_GE(files.size(), 15u);
  std::size_t compared = 0;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    protocol::JobSpec job;
    try {
      job = config::parse_volcano_job(read_text(path));
    } catch (const hub::FieldError&) {
      continue;  // the compat corpus holds jobs Volcano itself refuses
    }
    const hub::GangShape gang = hub_gang(job);
    const DispatchGang admitted = gang_for_part(sent_prepare(job, gang));
    expect_same_gang(gang, admitted.shape);
    ++compared;
  }
  EXPECT_GE(compared, 15u);
}

// Every field of the wire form is read back into its own place: a gang with
// each set to something other than its default survives the round trip.
TEST(ResolvedGangWire, EveryFieldSurvivesTheRoundTrip) {
  hub::GangShape gang;
  hub::TaskShape task{"worker",
                      6,
                      hub::ResourceVector::from_list({{"cpu", 4000}, {"nvidia.com/gpu", 8000}}),
                      {{"pool", "a"}},
                      {{"gpu", "Exists", "", "NoSchedule"}}};
  task.partition_size = 3;
  task.min_partitions = 1;
  task.partition_topology = {hub::TopologyConstraint::Mode::kHard, 2};
  gang.tasks.push_back(task);
  gang.min_available = 3;
  gang.topology = {hub::TopologyConstraint::Mode::kSoft, 4};
  expect_same_gang(gang, hub::gang_from_wire(hub::gang_to_wire(gang)));
}

TEST(ResolvedGangWire, AGangNoResolverCouldMakeIsRefusedNamingTheField) {
  hub::GangShape gang = hub::make_uniform_gang(4, hub::ResourceVector::from_list({{"cpu", 1000}}));
  const protocol::ResolvedGang good = hub::gang_to_wire(gang);
  const auto refused_field = [](const protocol::ResolvedGang& wire) -> std::string {
    try {
      hub::gang_from_wire(wire);
    } catch (const hub::FieldError& e) {
      return e.field();
    }
    return "(accepted)";
  };
  protocol::ResolvedGang wire = good;
  wire.tasks[0].replicas = 0;
  EXPECT_EQ(refused_field(wire), "gang.tasks[0].replicas");
  wire = good;
  wire.tasks[0].per_replica["cpu"] = -1;
  EXPECT_EQ(refused_field(wire), "gang.tasks[0].per_replica[cpu]");
  wire = good;
  wire.tasks[0].partition_size = 5;
  EXPECT_EQ(refused_field(wire), "gang.tasks[0].partition_size");
  wire = good;
  wire.tasks[0].partition_size = 2;
  wire.tasks[0].min_partitions = 3;
  EXPECT_EQ(refused_field(wire), "gang.tasks[0].min_partitions");
  wire = good;
  wire.topology.mode = "strict";
  EXPECT_EQ(refused_field(wire), "gang.topology.mode");
  wire = good;
  wire.tasks[0].partition_topology.highest_tier = hub::kMaxTopologyTiers + 1;
  EXPECT_EQ(refused_field(wire), "gang.tasks[0].partition_topology.highest_tier");
  wire = good;
  wire.min_available = 5;
  EXPECT_EQ(refused_field(wire), "gang.min_available");
  EXPECT_EQ(refused_field(good), "(accepted)");
}

}  // namespace
}  // namespace gantry::agents
