// Volcano users bring their manifests unchanged: every Job and Queue in
// tests/config/volcano_compat/ is written in the shape of Volcano's own
// examples and user guides, and must be accepted (docs/volcano-compat.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/volcano_job.hpp"
#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

std::vector<std::filesystem::path> manifests(const std::string& kind) {
  const std::filesystem::path dir =
      std::filesystem::path(GANTRY_SOURCE_DIR) / "tests" / "config" / "volcano_compat" / kind;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  return files;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(VolcanoCompat, EveryVolcanoShapedJobIsAccepted) {
  const std::vector<std::filesystem::path> files = manifests("jobs");
  ASSERT_GE(files.size(), 10u);
  for (const auto& path : files) {
    try {
      const protocol::JobSpec job = parse_volcano_job(read_text(path));
      EXPECT_FALSE(job.name.empty() && job.generate_name.empty()) << path;
    } catch (const hub::FieldError& e) {
      ADD_FAILURE() << path.filename() << " refused: " << e.what();
    }
  }
}

TEST(VolcanoCompat, EveryVolcanoShapedQueueIsAccepted) {
  const std::vector<std::filesystem::path> files = manifests("queues");
  for (const auto& path : files) {
    try {
      parse_volcano_queue(read_text(path));
    } catch (const hub::FieldError& e) {
      ADD_FAILURE() << path.filename() << " refused: " << e.what();
    }
  }
}

// The policies Volcano's examples use come through as written.
TEST(VolcanoCompat, TheMpiExampleKeepsItsPoliciesAndPlugins) {
  const std::filesystem::path path = std::filesystem::path(GANTRY_SOURCE_DIR) / "tests" / "config" /
                                     "volcano_compat" / "jobs" / "lm-mpi-job.yaml";
  const protocol::JobSpec job = parse_volcano_job(read_text(path));
  EXPECT_EQ(job.plugins.count("ssh"), 1u);
  EXPECT_EQ(job.plugins.count("svc"), 1u);
  ASSERT_EQ(job.policies.size(), 1u);
  EXPECT_EQ(job.policies[0].action, "RestartJob");
  ASSERT_EQ(job.tasks[0].policies.size(), 1u);
  EXPECT_EQ(job.tasks[0].policies[0].events, std::vector<std::string>{"TaskCompleted"});
  EXPECT_EQ(job.tasks[0].policies[0].action, "CompleteJob");
  EXPECT_EQ(job.labels.at("volcano.sh/job-type"), "MPI");
}

}  // namespace
}  // namespace gantry::config
