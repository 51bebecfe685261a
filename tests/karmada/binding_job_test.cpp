#include "karmada/binding_job.hpp"

#include <gtest/gtest.h>

#include "config/volcano_job.hpp"
#include "hub/field_error.hpp"

namespace gantry::karmada {
namespace {

using nlohmann::json;

// A ResourceBinding as Karmada's detector creates it for a Volcano Job,
// after Gantry's webhook suspended it.
json volcano_binding() {
  return json::parse(R"({
    "apiVersion": "work.karmada.io/v1alpha2",
    "kind": "ResourceBinding",
    "metadata": {
      "name": "ddp-job",
      "namespace": "research",
      "resourceVersion": "4711",
      "uid": "8d2f3c1e-0b5a-4c7e-9f11-2a6b7c8d9e01",
      "labels": {"propagationpolicy.karmada.io/name": "gpu-jobs"}
    },
    "spec": {
      "resource": {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "namespace": "research",
        "name": "ddp",
        "uid": "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
        "resourceVersion": "1200"
      },
      "replicaRequirements": {
        "resourceRequest": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
        "priorityClassName": "high-priority"
      },
      "replicas": 4,
      "placement": {
        "clusterAffinity": {"clusterNames": ["east", "west"]},
        "replicaScheduling": {
          "replicaSchedulingType": "Divided",
          "replicaDivisionPreference": "Aggregated"
        }
      },
      "schedulerName": "gantry",
      "suspension": {"scheduling": true}
    }
  })");
}

// The Volcano Job the binding refers to, as read from the Karmada API server.
json volcano_workload() {
  return json::parse(R"({
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {
      "name": "ddp",
      "namespace": "research",
      "annotations": {
        "gantry.io/time-limit": "2h",
        "kubectl.kubernetes.io/last-applied-configuration": "{}"
      }
    },
    "spec": {
      "queue": "research",
      "minAvailable": 4,
      "priorityClassName": "low-priority",
      "schedulerName": "volcano",
      "plugins": {"pytorch": ["--master=master", "--worker=worker"]},
      "tasks": [
        {
          "name": "master",
          "replicas": 1,
          "template": {"spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "A100"},
            "restartPolicy": "OnFailure",
            "containers": [{
              "name": "trainer",
              "image": "pytorch/pytorch:2.1",
              "command": ["python", "train.py"],
              "resources": {"requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1}}
            }]
          }}
        },
        {
          "name": "worker",
          "replicas": 3,
          "template": {"spec": {
            "containers": [
              {"name": "trainer", "image": "pytorch/pytorch:2.1",
               "resources": {"requests": {"cpu": "8"}, "limits": {"nvidia.com/gpu": "2"}}},
              {"name": "sidecar", "image": "busybox:1.36",
               "resources": {"requests": {"cpu": "100m"}}}
            ]
          }}
        }
      ]
    }
  })");
}

// A Deployment's binding: no Volcano workload, Karmada's replicaRequirements.
json deployment_binding() {
  return json::parse(R"({
    "apiVersion": "work.karmada.io/v1alpha2",
    "kind": "ResourceBinding",
    "metadata": {"name": "web-deployment", "namespace": "shop", "resourceVersion": "88"},
    "spec": {
      "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"},
      "replicaRequirements": {
        "nodeClaim": {"nodeSelector": {"nvidia.com/gpu.product": "L4"},
                      "tolerations": [{"key": "gpu", "operator": "Exists"}]},
        "resourceRequest": {"cpu": "500m", "memory": "1Gi"},
        "namespace": "shop",
        "priorityClassName": "system-cluster-critical"
      },
      "replicas": 3,
      "placement": {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
    }
  })");
}

json deployment_workload() {
  return json::parse(R"({
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
      "name": "web",
      "namespace": "shop",
      "annotations": {"scheduling.volcano.sh/queue-name": "serving",
                      "gantry.io/cluster-selector": "region=eu, gantry.io/source=other"}
    },
    "spec": {"replicas": 3}
  })");
}

protocol::JobSpec parse(const std::string& document) {
  return config::parse_volcano_job(document);
}

TEST(BindingJob, KeyAndJobNameComeFromMetadata) {
  const BindingKey key = binding_key(volcano_binding());
  EXPECT_EQ(key.namespace_, "research");
  EXPECT_EQ(key.name, "ddp-job");
  EXPECT_EQ(job_name(key), "research.ddp-job");
}

TEST(BindingJob, KeyWithoutNamespaceNamesTheField) {
  json binding = volcano_binding();
  binding["metadata"].erase("namespace");
  try {
    binding_key(binding);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "metadata.namespace");
  }
}

TEST(BindingJob, WorkloadPathForVolcanoAppsAndCore) {
  EXPECT_EQ(workload_path(volcano_binding()),
            "/apis/batch.volcano.sh/v1alpha1/namespaces/research/jobs/ddp");
  EXPECT_EQ(workload_path(deployment_binding()), "/apis/apps/v1/namespaces/shop/deployments/web");
  json pod = deployment_binding();
  pod["spec"]["resource"] = {
      {"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", "shop"}, {"name", "p0"}};
  EXPECT_EQ(workload_path(pod), "/api/v1/namespaces/shop/pods/p0");
  json cluster_scoped = deployment_binding();
  cluster_scoped["spec"]["resource"] = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"}, {"name", "view"}};
  EXPECT_EQ(workload_path(cluster_scoped), "/apis/rbac.authorization.k8s.io/v1/clusterroles/view");
}

TEST(BindingJob, WorkloadPathWithoutKindNamesTheField) {
  json binding = deployment_binding();
  binding["spec"]["resource"]["kind"] = 7;
  try {
    workload_path(binding);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.resource.kind");
    EXPECT_EQ(e.value(), "7");
  }
}

TEST(BindingJob, VolcanoJobBecomesItsTasks) {
  const json workload = volcano_workload();
  const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
  EXPECT_EQ(job.name, "research.ddp-job");
  EXPECT_EQ(job.queue, "research");
  EXPECT_EQ(job.min_available, 4);
  EXPECT_EQ(job.priority_class, "low-priority");  // the Volcano Job's class wins
  EXPECT_EQ(job.priority, -1000);
  ASSERT_EQ(job.tasks.size(), 2u);
  const protocol::TaskSpec& master = job.tasks[0];
  EXPECT_EQ(master.name, "master");
  EXPECT_EQ(master.replicas, 1);
  EXPECT_EQ(master.node_selector, (protocol::Labels{{"nvidia.com/gpu.product", "A100"}}));
  ASSERT_EQ(master.containers.size(), 1u);
  EXPECT_EQ(master.containers[0].name, "trainer");
  EXPECT_EQ(master.containers[0].image, "pytorch/pytorch:2.1");
  EXPECT_EQ(
      master.containers[0].requests,
      (protocol::ResourceList{
          {"cpu", 4000}, {"memory", 16LL * 1024 * 1024 * 1024 * 1000}, {"nvidia.com/gpu", 1000}}));
  const protocol::TaskSpec& worker = job.tasks[1];
  EXPECT_EQ(worker.name, "worker");
  EXPECT_EQ(worker.replicas, 3);
  EXPECT_TRUE(worker.node_selector.empty());
  ASSERT_EQ(worker.containers.size(), 2u);
  EXPECT_EQ(worker.containers[0].requests,
            (protocol::ResourceList{{"cpu", 8000}, {"nvidia.com/gpu", 2000}}));
  EXPECT_EQ(worker.containers[0].limits, (protocol::ResourceList{{"nvidia.com/gpu", 2000}}));
  EXPECT_EQ(worker.containers[1].name, "sidecar");
  EXPECT_EQ(worker.containers[1].requests, (protocol::ResourceList{{"cpu", 100}}));
}

// Fields the agents honour travel with the workload's spec as submitted.
TEST(BindingJob, VolcanoJobSpecIsReadWhole) {
  json workload = volcano_workload();
  json& spec = workload["spec"];
  spec["ttlSecondsAfterFinished"] = 600;
  spec["minSuccess"] = 3;
  spec["maxRetry"] = 5;
  spec["policies"] = json::parse(R"([{"event": "PodEvicted", "action": "RestartJob"}])");
  spec["tasks"][1]["minAvailable"] = 2;
  spec["tasks"][1]["maxRetry"] = 1;
  spec["tasks"][1]["dependsOn"] = {{"name", {"master"}}};
  spec["tasks"][1]["template"]["spec"]["tolerations"] =
      json::parse(R"([{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])");
  const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
  EXPECT_EQ(job.ttl_seconds_after_finished, 600);
  EXPECT_EQ(job.min_success, 3);
  EXPECT_EQ(job.max_retry, 5);
  ASSERT_EQ(job.policies.size(), 1u);
  EXPECT_EQ(job.policies[0].action, "RestartJob");
  EXPECT_EQ(job.plugins.at("pytorch"),
            (std::vector<std::string>{"--master=master", "--worker=worker"}));
  const protocol::TaskSpec& worker = job.tasks[1];
  EXPECT_EQ(worker.min_available, 2);
  EXPECT_EQ(worker.max_retry, 1);
  EXPECT_EQ(worker.depends_on.names, (std::vector<std::string>{"master"}));
  ASSERT_EQ(worker.tolerations.size(), 1u);
  EXPECT_EQ(worker.tolerations[0].key, "gpu");
  // The whole pod template reaches the job, command and restartPolicy included.
  const json master_template = json::parse(job.tasks[0].pod_template);
  EXPECT_EQ(master_template, workload["spec"]["tasks"][0]["template"]);
}

// What the API server adds to a stored workload is not the job's: the
// manifest reader would refuse metadata.uid, and status is no input.
TEST(BindingJob, ServerSetFieldsAreLeftBehind) {
  json workload = volcano_workload();
  workload["metadata"]["uid"] = "0a1b2c3d";
  workload["metadata"]["resourceVersion"] = "1200";
  workload["metadata"]["generation"] = 2;
  workload["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}}});
  workload["metadata"]["ownerReferences"] = json::array();
  workload["metadata"]["labels"] = {{"team", "vision"}};
  workload["status"] = {{"state", {{"phase", "Running"}}}};
  const std::string document = job_document(volcano_binding(), &workload);
  const json parsed = json::parse(document);
  EXPECT_EQ(parsed.at("metadata").size(), 3u) << parsed.at("metadata").dump();
  EXPECT_FALSE(parsed.contains("status"));
  EXPECT_EQ(parse(document).labels, (protocol::Labels{{"team", "vision"}}));
}

// The manifest reader refuses a PriorityClass it does not know; on this path
// the class is resolved as Karmada resolved it, and the job still runs.
TEST(BindingJob, UnknownVolcanoPriorityClassIsResolvedNotRefused) {
  json workload = volcano_workload();
  workload["spec"]["priorityClassName"] = "team-urgent";
  json binding = volcano_binding();
  binding["spec"]["replicaRequirements"].erase("priorityClassName");
  EXPECT_EQ(parse(job_document(binding, &workload)).priority_class, "");
  binding["spec"]["schedulePriority"]["priority"] = 5000;
  EXPECT_EQ(parse(job_document(binding, &workload)).priority_class, "high-priority");
}

TEST(BindingJob, AnnotationsNameTheBindingAndKarmadaClusters) {
  json workload = volcano_workload();
  workload["spec"].erase("plugins");  // a pytorch job is never split (below)
  const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
  EXPECT_EQ(job.annotations,
            (protocol::Labels{{"gantry.io/karmada-binding", "research/ddp-job"},
                              {"gantry.io/cluster-selector", "gantry.io/source=karmada"},
                              {"gantry.io/time-limit", "2h"},
                              {"gantry.io/split", "allowed"}}));
}

TEST(BindingJob, WorkloadSplitAnnotationOverridesDividedPlacement) {
  json workload = volcano_workload();
  workload["metadata"]["annotations"]["gantry.io/split"] = "never";
  const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
  EXPECT_EQ(job.annotations.at("gantry.io/split"), "never");
}

// Each member's Volcano would give every part a world of its own share (no
// cross-cluster rendezvous in Karmada mode): such a job stays whole, whatever
// the placement or the workload asks, and says why.
TEST(BindingJob, JobsWhosePluginsNeedOneWorldAreNeverSplitWhateverThePolicySays) {
  for (const std::string plugin : {"pytorch", "tensorflow", "mpi", "ray"}) {
    for (const bool workload_asks : {false, true}) {
      json workload = volcano_workload();
      workload["spec"]["plugins"] = json{{plugin, json::array()}};
      if (workload_asks) workload["metadata"]["annotations"]["gantry.io/split"] = "allowed";
      const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
      EXPECT_EQ(job.annotations.at("gantry.io/split"), "never") << plugin;
      EXPECT_EQ(job.annotations.at(kSplitRefusedAnnotation),
                "not split: Volcano's " + plugin + " plugin needs every replica in one cluster");
    }
  }
}

TEST(BindingJob, APluginJobThatAskedForNoSplitGivesNoReason) {
  json binding = volcano_binding();
  binding["spec"]["placement"].erase("replicaScheduling");
  const json workload = volcano_workload();  // pytorch
  const protocol::JobSpec job = parse(job_document(binding, &workload));
  EXPECT_FALSE(job.annotations.contains("gantry.io/split"));
  EXPECT_FALSE(job.annotations.contains(kSplitRefusedAnnotation));
}

TEST(BindingJob, OnlyVolcanoJobsWithWholeWorldPluginsAreRefusedASplit) {
  json plain = volcano_workload();
  plain["spec"]["plugins"] = json{{"svc", json::array()}, {"env", json::array()}};
  EXPECT_EQ(split_refusal(plain), std::nullopt);
  EXPECT_EQ(split_refusal(deployment_workload()), std::nullopt);
  EXPECT_NE(split_refusal(volcano_workload()), std::nullopt);
}

TEST(BindingJob, WorkloadCannotUnsetTheKarmadaSourceOrTheBinding) {
  json workload = volcano_workload();
  workload["metadata"]["annotations"]["gantry.io/karmada-binding"] = "other/binding";
  workload["metadata"]["annotations"]["gantry.io/cluster-selector"] = "gantry.io/source=inventory";
  const protocol::JobSpec job = parse(job_document(volcano_binding(), &workload));
  EXPECT_EQ(job.annotations.at("gantry.io/karmada-binding"), "research/ddp-job");
  EXPECT_EQ(job.annotations.at("gantry.io/cluster-selector"), "gantry.io/source=karmada");
}

TEST(BindingJob, DeploymentIsOneGangOfItsReplicas) {
  const json workload = deployment_workload();
  const protocol::JobSpec job = parse(job_document(deployment_binding(), &workload));
  EXPECT_EQ(job.name, "shop.web-deployment");
  EXPECT_EQ(job.queue, "serving");
  EXPECT_EQ(job.min_available, 0);    // every replica: one gang
  EXPECT_EQ(job.priority_class, "");  // system-cluster-critical is not a Gantry class
  ASSERT_EQ(job.tasks.size(), 1u);
  EXPECT_EQ(job.tasks[0].name, "main");
  EXPECT_EQ(job.tasks[0].replicas, 3);
  EXPECT_EQ(job.tasks[0].node_selector, (protocol::Labels{{"nvidia.com/gpu.product", "L4"}}));
  ASSERT_EQ(job.tasks[0].containers.size(), 1u);
  EXPECT_EQ(job.tasks[0].containers[0].name, "main");
  EXPECT_EQ(job.tasks[0].containers[0].image, "karmada-workload");
  EXPECT_EQ(job.tasks[0].containers[0].requests,
            (protocol::ResourceList{{"cpu", 500}, {"memory", 1024LL * 1024 * 1024 * 1000}}));
  // Duplicated placement: no split; the user's selector narrows Karmada's clusters.
  EXPECT_EQ(
      job.annotations,
      (protocol::Labels{{"gantry.io/karmada-binding", "shop/web-deployment"},
                        {"gantry.io/cluster-selector", "gantry.io/source=karmada,region=eu"}}));
}

TEST(BindingJob, KnownBindingPriorityClassIsKept) {
  json binding = deployment_binding();
  binding["spec"]["replicaRequirements"]["priorityClassName"] = "high-priority";
  const protocol::JobSpec job = parse(job_document(binding, nullptr));
  EXPECT_EQ(job.priority_class, "high-priority");
  EXPECT_EQ(job.priority, 1000);
}

// system-cluster-critical is no Gantry class: Karmada's resolved value ranks
// the job among Gantry's classes (the highest at or below it).
TEST(BindingJob, UnknownClassRanksBySchedulePriority) {
  json binding = deployment_binding();
  EXPECT_EQ(parse(job_document(binding, nullptr)).priority_class, "") << "no value: default";
  binding["spec"]["schedulePriority"]["priority"] = 2000000000;
  EXPECT_EQ(parse(job_document(binding, nullptr)).priority_class, "high-priority");
  binding["spec"]["schedulePriority"]["priority"] = 10;
  EXPECT_EQ(parse(job_document(binding, nullptr)).priority_class, "default-priority");
  binding["spec"]["schedulePriority"]["priority"] = -5000;
  EXPECT_EQ(parse(job_document(binding, nullptr)).priority_class, "low-priority");
  binding["spec"]["schedulePriority"]["priority"] = "high";
  EXPECT_THROW(job_document(binding, nullptr), hub::FieldError);
}

TEST(BindingJob, UnreadableWorkloadFallsBackToTheBinding) {
  // The Volcano Job could not be read: Karmada's own summary still describes
  // the replicas, so the job can wait in the default queue.
  const protocol::JobSpec job = parse(job_document(volcano_binding(), nullptr));
  EXPECT_EQ(job.queue, "default");
  EXPECT_EQ(job.priority_class, "high-priority");
  ASSERT_EQ(job.tasks.size(), 1u);
  EXPECT_EQ(job.tasks[0].replicas, 4);
  EXPECT_EQ(
      job.tasks[0].containers[0].requests,
      (protocol::ResourceList{
          {"cpu", 4000}, {"memory", 16LL * 1024 * 1024 * 1024 * 1000}, {"nvidia.com/gpu", 1000}}));
  EXPECT_EQ(job.annotations.at("gantry.io/split"), "allowed");
}

TEST(BindingJob, ZeroReplicasStillMakeOneReplica) {
  json binding = deployment_binding();
  binding["spec"].erase("replicas");  // omitempty: Karmada drops 0
  const protocol::JobSpec job = parse(job_document(binding, nullptr));
  EXPECT_EQ(job.tasks[0].replicas, 1);
}

TEST(BindingJob, BadRequestQuantityNamesTheField) {
  json binding = deployment_binding();
  binding["spec"]["replicaRequirements"]["resourceRequest"]["cpu"] = true;
  try {
    job_document(binding, nullptr);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.replicaRequirements.resourceRequest.cpu");
    EXPECT_EQ(e.value(), "true");
  }
  binding["spec"]["replicaRequirements"]["resourceRequest"]["cpu"] = "lots";
  try {
    job_document(binding, nullptr);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.replicaRequirements.resourceRequest.cpu");
    EXPECT_EQ(e.value(), "lots");
  }
}

TEST(BindingJob, WrongReplicasTypeNamesTheField) {
  json binding = deployment_binding();
  binding["spec"]["replicas"] = "3";
  try {
    job_document(binding, nullptr);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.replicas");
    EXPECT_EQ(e.value(), "3");
  }
}

TEST(BindingJob, BadWorkloadTaskFieldNamesTheWorkloadPath) {
  json workload = volcano_workload();
  workload["spec"]["tasks"][1]["template"]["spec"]["containers"][0]["resources"]["requests"]
          ["cpu"] = "8 cores";
  try {
    job_document(volcano_binding(), &workload);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.tasks[1].template.spec.containers[0].resources.requests.cpu");
    EXPECT_EQ(e.value(), "8 cores");
  }
  workload = volcano_workload();
  workload["spec"]["tasks"][0]["replicas"] = 1.5;
  try {
    job_document(volcano_binding(), &workload);
    FAIL() << "expected FieldError";
  } catch (const hub::FieldError& e) {
    EXPECT_EQ(e.field(), "spec.tasks[0].replicas");
  }
}

}  // namespace
}  // namespace gantry::karmada
