#include "config/inventory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "hub/field_error.hpp"
#include "support/temp_dir.hpp"

namespace gantry::config {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

const protocol::NodeUsage* find_node(const Inventory& inventory, const std::string& name) {
  for (const auto& node : inventory.nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

// Runs `parse` and returns the FieldError it throws (fails the test if none).
template <class Parse>
hub::FieldError field_error_of(Parse parse) {
  try {
    parse();
  } catch (const hub::FieldError& e) {
    return e;
  }
  ADD_FAILURE() << "no FieldError thrown";
  return hub::FieldError("", "", "");
}

TEST(InventoryYaml, ParsesClusterNamedNodesAndCountExpansion) {
  const Inventory inventory = parse_inventory_yaml(R"(
cluster:
  name: east
  labels: {region: us-east}
nodes:
  - name: cpu-0
    allocatable: {cpu: "32", memory: 128Gi}
  - count: 3
    namePrefix: gpu-
    labels: {nvidia.com/gpu.product: A100}
    allocatable: {cpu: 64, memory: 512Gi, nvidia.com/gpu: 4}
)");
  EXPECT_EQ(inventory.cluster_name, "east");
  EXPECT_EQ(inventory.cluster_labels.at("region"), "us-east");
  ASSERT_EQ(inventory.nodes.size(), 4u);

  const protocol::NodeUsage* cpu = find_node(inventory, "cpu-0");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->allocatable.at("cpu"), 32000);
  EXPECT_EQ(cpu->allocatable.at("memory"), 128 * kGi * 1000);
  EXPECT_EQ(cpu->allocatable.count("nvidia.com/gpu"), 0u);
  EXPECT_TRUE(cpu->gpu_model.empty());
  EXPECT_TRUE(cpu->allocated.empty());

  for (const char* name : {"gpu-0", "gpu-1", "gpu-2"}) {
    const protocol::NodeUsage* gpu = find_node(inventory, name);
    ASSERT_NE(gpu, nullptr) << name;
    EXPECT_EQ(gpu->allocatable.at("nvidia.com/gpu"), 4000);
    EXPECT_EQ(gpu->labels.at("nvidia.com/gpu.product"), "A100");
    EXPECT_EQ(gpu->gpu_model, "A100");
  }
  EXPECT_EQ(find_node(inventory, "gpu-3"), nullptr);
}

TEST(InventoryYaml, ClusterSectionIsOptional) {
  const Inventory inventory =
      parse_inventory_yaml("nodes:\n  - name: n0\n    allocatable: {cpu: 500m}\n");
  EXPECT_TRUE(inventory.cluster_name.empty());
  ASSERT_EQ(inventory.nodes.size(), 1u);
  EXPECT_EQ(inventory.nodes[0].allocatable.at("cpu"), 500);
}

TEST(InventoryYaml, BadQuantityNamesTheFieldAndValue) {
  const hub::FieldError error = field_error_of([] {
    parse_inventory_yaml(R"(
nodes:
  - name: a
    allocatable: {cpu: "1"}
  - name: b
    allocatable: {cpu: "1"}
  - name: c
    allocatable: {cpu: "lots", memory: 1Gi}
)");
  });
  EXPECT_EQ(error.field(), "nodes[2].allocatable.cpu");
  EXPECT_EQ(error.value(), "lots");
  EXPECT_NE(std::string(error.what()).find("nodes[2].allocatable.cpu"), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("lots"), std::string::npos);
}

TEST(InventoryYaml, RefusesMalformedNodes) {
  struct Case {
    const char* yaml;
    const char* field;
  };
  const Case cases[] = {
      {"nodes: []\n", "nodes"},
      {"cluster: {name: x}\n", "nodes"},
      {"nodes:\n  - name: a\n", "nodes[0].allocatable"},
      {"nodes:\n  - allocatable: {cpu: 1}\n", "nodes[0]"},
      {"nodes:\n  - name: a\n    count: 2\n    allocatable: {cpu: 1}\n", "nodes[0]"},
      {"nodes:\n  - count: 2\n    allocatable: {cpu: 1}\n", "nodes[0].namePrefix"},
      {"nodes:\n  - count: 0\n    namePrefix: n\n    allocatable: {cpu: 1}\n", "nodes[0].count"},
      {"nodes:\n  - count: two\n    namePrefix: n\n    allocatable: {cpu: 1}\n", "nodes[0].count"},
      {"nodes:\n  - name: a\n    alocatable: {cpu: 1}\n", "nodes[0].alocatable"},
      {"nodes:\n  - name: a\n    allocatable: {cpu: 1}\n  - name: a\n    allocatable: {cpu: 1}\n",
       "nodes[1]"},
      {"nodes:\n  - name: a\n    allocatable: {cpu: [1, 2]}\n", "nodes[0].allocatable.cpu"},
      {"nodes:\n  - name: a\n    labels: [x]\n    allocatable: {cpu: 1}\n", "nodes[0].labels"},
      {"clusters: {name: x}\nnodes:\n  - name: a\n    allocatable: {cpu: 1}\n", "clusters"},
  };
  for (const Case& c : cases) {
    const hub::FieldError error = field_error_of([&] { parse_inventory_yaml(c.yaml); });
    EXPECT_EQ(error.field(), c.field) << c.yaml;
  }
}

TEST(InventoryYaml, NodesMayDeclareTaintsAsKubernetesNodesDo) {
  const Inventory inventory = parse_inventory_yaml(R"(
nodes:
  - count: 2
    namePrefix: gpu-
    allocatable: {nvidia.com/gpu: 8}
    taints:
      - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
      - {key: soft, effect: PreferNoSchedule}
      - {key: maintenance, effect: NoExecute}
  - name: cpu-0
    allocatable: {cpu: 8}
)");
  ASSERT_EQ(inventory.nodes.size(), 3u);
  const std::vector<protocol::Taint> expected{{"nvidia.com/gpu", "present", "NoSchedule"},
                                              {"maintenance", "", "NoExecute"}};
  EXPECT_EQ(inventory.nodes[0].taints, expected) << "PreferNoSchedule keeps no task off";
  EXPECT_EQ(inventory.nodes[1].taints, expected);
  EXPECT_TRUE(inventory.nodes[2].taints.empty());
}

TEST(InventoryYaml, RefusesMalformedTaints) {
  const auto error_for = [](const std::string& taints) {
    return field_error_of([&] {
      parse_inventory_yaml("nodes:\n  - name: n\n    allocatable: {cpu: 1}\n    taints: " + taints +
                           "\n");
    });
  };
  EXPECT_EQ(error_for("[{effect: NoSchedule}]").field(), "nodes[0].taints[0].key");
  EXPECT_EQ(error_for("[{key: k, effect: Never}]").field(), "nodes[0].taints[0].effect");
  EXPECT_EQ(error_for("[{key: k}]").field(), "nodes[0].taints[0].effect");
  EXPECT_EQ(error_for("[{key: k, effect: NoSchedule, operator: Exists}]").field(),
            "nodes[0].taints[0].operator");
  EXPECT_EQ(error_for("{key: k}").field(), "nodes[0].taints");
}

TEST(InventoryYaml, SyntaxErrorNamesLineAndColumn) {
  const hub::FieldError error =
      field_error_of([] { parse_inventory_yaml("nodes:\n  - name: a: b\n"); });
  EXPECT_EQ(error.field(), "yaml");
  EXPECT_NE(std::string(error.what()).find(" at line 2, column "), std::string::npos)
      << error.what();
}

TEST(InventoryCsv, ParsesOpenbRows) {
  const Inventory inventory = parse_openb_csv(
      "sn,cpu_milli,memory_mib,gpu,model\r\n"
      "openb-node-0000,64000,262144,2,P100\r\n"
      "\r\n"
      "openb-node-0001,96000,786432,8,G2\r\n"
      "openb-cpu-0,32000,1024,0,\r\n");
  ASSERT_EQ(inventory.nodes.size(), 3u);
  const protocol::NodeUsage& p100 = inventory.nodes[0];
  EXPECT_EQ(p100.name, "openb-node-0000");
  EXPECT_EQ(p100.allocatable.at("cpu"), 64000);
  EXPECT_EQ(p100.allocatable.at("memory"), 262144LL * 1024 * 1024 * 1000);
  EXPECT_EQ(p100.allocatable.at("nvidia.com/gpu"), 2000);
  EXPECT_EQ(p100.labels.at("nvidia.com/gpu.product"), "P100");
  EXPECT_EQ(p100.gpu_model, "P100");
  EXPECT_EQ(inventory.nodes[1].gpu_model, "G2");
  const protocol::NodeUsage& cpu_only = inventory.nodes[2];
  EXPECT_EQ(cpu_only.allocatable.count("nvidia.com/gpu"), 0u);
  EXPECT_TRUE(cpu_only.labels.empty());
}

TEST(InventoryCsv, BadFieldNamesLineColumnAndValue) {
  const hub::FieldError error = field_error_of([] {
    parse_openb_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,T4\nn1,1000,-5,2,T4\n");
  });
  EXPECT_EQ(error.field(), "line 3, column 3 (memory_mib)");
  EXPECT_EQ(error.value(), "-5");
}

TEST(InventoryCsv, RefusesBadHeaderWrongFieldCountAndDuplicates) {
  EXPECT_EQ(field_error_of([] { parse_openb_csv("name,cpu,mem,gpu,model\n"); }).field(),
            "line 1 (header)");
  EXPECT_EQ(field_error_of([] {
              parse_openb_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2\n");
            }).field(),
            "line 2");
  EXPECT_EQ(field_error_of([] {
              parse_openb_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,T4\nn0,1,1,0,\n");
            }).field(),
            "line 3, column 1 (sn)");
  EXPECT_EQ(field_error_of([] {
              parse_openb_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1k,1024,2,T4\n");
            }).field(),
            "line 2, column 2 (cpu_milli)");
  EXPECT_EQ(field_error_of([] { parse_openb_csv("sn,cpu_milli,memory_mib,gpu,model\n"); }).field(),
            "line 2");
}

std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("GANTRY_SHARED")) return env;
  return std::filesystem::path(GANTRY_SOURCE_DIR) / ".." / "shared";
}

TEST(InventoryCsv, LoadsTheRealOpenbNodeListWhenPresent) {
  const std::filesystem::path file =
      shared_dir() / "traces" / "alibaba-openb" / "openb_node_list_gpu_node.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "not present: " << file;
  const Inventory inventory = load_inventory(file.string());
  std::size_t lines = 0;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines += line.empty() ? 0 : 1;
  EXPECT_EQ(inventory.nodes.size(), lines - 1);  // every row but the header
  for (const protocol::NodeUsage& node : inventory.nodes) {
    ASSERT_GT(node.allocatable.at("cpu"), 0) << node.name;
    ASSERT_GT(node.allocatable.at("memory"), 0) << node.name;
    if (node.allocatable.count("nvidia.com/gpu") != 0) {
      ASSERT_FALSE(node.gpu_model.empty()) << node.name;
      ASSERT_EQ(node.labels.at("nvidia.com/gpu.product"), node.gpu_model);
    }
  }
}

TEST(InventoryFile, ChoosesFormatByExtensionAndReportsUnreadableFiles) {
  const support::TempDir dir("gantry-inventory");
  dir.write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,1,T4\n");
  dir.write("nodes.yaml", "nodes:\n  - name: y0\n    allocatable: {cpu: 1}\n");
  EXPECT_EQ(load_inventory((dir.path() / "nodes.csv").string()).nodes.at(0).gpu_model, "T4");
  EXPECT_EQ(load_inventory((dir.path() / "nodes.yaml").string()).nodes.at(0).name, "y0");
  EXPECT_THROW(load_inventory((dir.path() / "missing.yaml").string()), std::runtime_error);
}

TEST(InventoryFile, ExampleInventoriesLoad) {
  const std::filesystem::path dir =
      std::filesystem::path(GANTRY_SOURCE_DIR) / "examples" / "inventories";
  const Inventory east = load_inventory((dir / "east.yaml").string());
  const Inventory west = load_inventory((dir / "west.yaml").string());
  const Inventory gpu8 = load_inventory((dir / "gpu8.yaml").string());
  EXPECT_EQ(east.cluster_name, "east");
  EXPECT_EQ(west.cluster_name, "west");
  EXPECT_EQ(gpu8.cluster_name, "gpu8");
  auto max_gpus = [](const Inventory& inventory) {
    std::int64_t most = 0;
    for (const auto& node : inventory.nodes) {
      const auto gpus = node.allocatable.find("nvidia.com/gpu");
      if (gpus != node.allocatable.end()) most = std::max(most, gpus->second / 1000);
    }
    return most;
  };
  EXPECT_EQ(max_gpus(gpu8), 8);
  const Inventory tainted = load_inventory((dir / "tainted.yaml").string());
  EXPECT_EQ(tainted.cluster_name, "tainted");
  const auto tainted_nodes = std::count_if(tainted.nodes.begin(), tainted.nodes.end(),
                                           [](const auto& node) { return !node.taints.empty(); });
  EXPECT_EQ(tainted_nodes, 2);
  EXPECT_LT(max_gpus(east), 8);
  EXPECT_LT(max_gpus(west), 8);
}

}  // namespace
}  // namespace gantry::config
