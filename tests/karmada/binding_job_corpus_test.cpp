// One resolved job model for both paths: every example Volcano Job (and the
// Volcano compatibility corpus) read by `gantryctl submit`'s reader and read
// as a Karmada workload + binding through the gateway's reader gives the same
// protocol::JobSpec, field by field. Only what Karmada mode owns may differ:
// the name (<namespace>.<binding>) and the annotations naming the binding,
// the Karmada cluster selector and the split a Divided placement allows. The
// jobs the hub's one resolver makes of the two are compared field by field too.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "config/volcano_job.hpp"
#include "config/yaml_json.hpp"
#include "hub/field_error.hpp"
#include "hub/gang_wire.hpp"
#include "hub/job_request.hpp"
#include "karmada/binding_job.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kNamespace = "research";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> yaml_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The manifest as the Karmada API server returns it: stored whole, with the
// fields the server sets (uid, resourceVersion, managedFields, a generated
// name, Karmada's policy labels) and a status, none of which is the job's.
json as_workload(const std::string& manifest) {
  json workload = config::yaml_to_json(YAML::Load(manifest), "");
  json& metadata = workload["metadata"];
  if (!metadata.contains("name"))
    metadata["name"] = metadata.value("generateName", "job-") + "x7k2p";
  metadata["namespace"] = kNamespace;
  metadata["uid"] = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
  metadata["resourceVersion"] = "1200";
  metadata["generation"] = 1;
  metadata["creationTimestamp"] = "2025-01-01T00:00:00Z";
  metadata["managedFields"] = json::array({{{"manager", "kubectl"}, {"operation", "Update"}}});
  workload["status"] = {{"state", {{"phase", "Pending"}}}, {"minAvailable", 1}};
  return workload;
}

// The ResourceBinding Karmada's detector makes for it under a policy naming
// Gantry (Duplicated: nothing Karmada-specific is added but the binding and
// cluster selector annotations).
json binding_for(const json& workload) {
  const std::string name = workload["metadata"]["name"];
  return {{"apiVersion", "work.karmada.io/v1alpha2"},
          {"kind", "ResourceBinding"},
          {"metadata", {{"namespace", kNamespace}, {"name", name + "-job"}}},
          {"spec",
           {{"resource",
             {{"apiVersion", workload["apiVersion"]},
              {"kind", workload["kind"]},
              {"namespace", kNamespace},
              {"name", name}}},
            {"schedulerName", "gantry"},
            {"suspension", {{"scheduling", true}}}}}};
}

// What Karmada mode owns, taken out of a job so that the rest can be compared.
protocol::JobSpec without_karmada_identity(protocol::JobSpec job) {
  job.name.clear();
  job.generate_name.clear();
  job.annotations.erase(kBindingAnnotation);
  job.annotations.erase("gantry.io/cluster-selector");
  return job;
}

void expect_same_task(const protocol::TaskSpec& manifest, const protocol::TaskSpec& binding) {
  SCOPED_TRACE("task " + manifest.name);
  EXPECT_EQ(manifest.name, binding.name);
  EXPECT_EQ(manifest.replicas, binding.replicas);
  EXPECT_EQ(manifest.node_selector, binding.node_selector);
  EXPECT_TRUE(manifest.containers == binding.containers) << "containers differ";
  EXPECT_EQ(manifest.active_deadline_seconds, binding.active_deadline_seconds);
  EXPECT_EQ(manifest.min_available, binding.min_available);
  EXPECT_EQ(manifest.max_retry, binding.max_retry);
  EXPECT_TRUE(manifest.policies == binding.policies) << "policies differ";
  EXPECT_TRUE(manifest.depends_on == binding.depends_on) << "dependsOn differs";
  EXPECT_EQ(manifest.topology_policy, binding.topology_policy);
  EXPECT_TRUE(manifest.partition_policy == binding.partition_policy) << "partitionPolicy differs";
  EXPECT_TRUE(manifest.tolerations == binding.tolerations) << "tolerations differ";
  EXPECT_EQ(manifest.pod_template, binding.pod_template);
}

void expect_same_job(const protocol::JobSpec& manifest_job, const protocol::JobSpec& binding_job) {
  const protocol::JobSpec manifest = without_karmada_identity(manifest_job);
  const protocol::JobSpec binding = without_karmada_identity(binding_job);
  EXPECT_EQ(manifest.queue, binding.queue);
  EXPECT_EQ(manifest.priority_class, binding.priority_class);
  EXPECT_EQ(manifest.priority, binding.priority);
  EXPECT_EQ(manifest.min_available, binding.min_available);
  EXPECT_EQ(manifest.max_retry, binding.max_retry);
  EXPECT_EQ(manifest.annotations, binding.annotations);
  EXPECT_EQ(manifest.labels, binding.labels);
  EXPECT_EQ(manifest.min_success, binding.min_success);
  EXPECT_EQ(manifest.ttl_seconds_after_finished, binding.ttl_seconds_after_finished);
  EXPECT_TRUE(manifest.policies == binding.policies) << "policies differ";
  EXPECT_EQ(manifest.plugins, binding.plugins);
  EXPECT_TRUE(manifest.network_topology == binding.network_topology) << "networkTopology differs";
  ASSERT_EQ(manifest.tasks.size(), binding.tasks.size());
  for (std::size_t i = 0; i < manifest.tasks.size(); ++i)
    expect_same_task(manifest.tasks[i], binding.tasks[i]);
  // Whole: a JobSpec field added later and not listed above is compared too.
  EXPECT_TRUE(manifest == binding) << "the JobSpecs differ in a field not listed above";
}

// The resolved jobs (hub::make_job_request) of the two readings, but for
// what Karmada mode owns (the name, the cluster selector).
void expect_same_resolved_job(const protocol::JobSpec& manifest_job,
                              const protocol::JobSpec& binding_job) {
  const hub::JobRequest manifest =
      hub::make_job_request(std::make_shared<protocol::JobSpec>(manifest_job));
  const hub::JobRequest binding =
      hub::make_job_request(std::make_shared<protocol::JobSpec>(binding_job));
  EXPECT_EQ(manifest.queue, binding.queue);
  EXPECT_EQ(manifest.priority, binding.priority);
  EXPECT_EQ(manifest.may_preempt, binding.may_preempt);
  EXPECT_EQ(manifest.split_allowed, binding.split_allowed);
  EXPECT_EQ(hub::gang_to_wire(manifest.gang), hub::gang_to_wire(binding.gang))
      << "the gangs differ (requests, selectors, tolerations, partitions, topology, minAvailable)";
  EXPECT_EQ(manifest.policies == nullptr, binding.policies == nullptr);
  EXPECT_EQ(manifest.allowed_clusters, binding.allowed_clusters);
  EXPECT_EQ(manifest.sla_waiting_ms, binding.sla_waiting_ms);
  EXPECT_EQ(manifest.time_limit_ms, binding.time_limit_ms);
  EXPECT_EQ(manifest.time_limit_field, binding.time_limit_field);
  EXPECT_EQ(manifest.ttl_after_finished_ms, binding.ttl_after_finished_ms);
}

// Reads one manifest both ways and compares; returns false when the manifest
// reader itself refuses it (then the binding reader must refuse it too).
bool compare_both_ways(const fs::path& path) {
  SCOPED_TRACE(path.string());
  const std::string manifest = read_text(path);
  const json workload = as_workload(manifest);
  const json binding = binding_for(workload);
  protocol::JobSpec manifest_job;
  try {
    manifest_job = config::parse_volcano_job(manifest);
  } catch (const hub::FieldError& refused) {
    EXPECT_THROW(job_document(binding, &workload), hub::FieldError)
        << "the manifest reader refuses " << refused.field() << "; the binding reader accepts";
    return false;
  }
  const protocol::JobSpec binding_job = config::parse_volcano_job(job_document(binding, &workload));
  EXPECT_EQ(binding_job.name, job_name(binding_key(binding)));
  EXPECT_EQ(binding_job.annotations.at(kBindingAnnotation),
            std::string(kNamespace) + "/" + binding["metadata"]["name"].get<std::string>());
  expect_same_job(manifest_job, binding_job);
  expect_same_resolved_job(manifest_job, binding_job);
  return true;
}

const fs::path kSource = GANTRY_SOURCE_DIR;

TEST(BindingJobCorpus, EveryExampleJobReadsTheSameThroughABinding) {
  const std::vector<fs::path> files = yaml_files(kSource / "examples" / "jobs");
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& path : files)
    EXPECT_TRUE(compare_both_ways(path)) << path << ": examples must parse";
}

TEST(BindingJobCorpus, VolcanoCompatJobsReadTheSameThroughABinding) {
  const std::vector<fs::path> files =
      yaml_files(kSource / "tests" / "config" / "volcano_compat" / "jobs");
  ASSERT_GE(files.size(), 5u);
  std::size_t compared = 0;
  for (const fs::path& path : files) compared += compare_both_ways(path) ? 1 : 0;
  EXPECT_EQ(compared, files.size()) << "every compat job is one Gantry reads";
}

}  // namespace
}  // namespace gantry::karmada
