// The pass's stage table (SchedulerCore::kPassStages) and the page that
// describes it (docs/adding-a-policy.md, "The pass's stages") list the same
// stages in the same order.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "hub/scheduler.hpp"

namespace gantry::hub {
namespace {

// The first column of the table under the heading, without its backticks.
std::vector<std::string> documented_stages() {
  std::ifstream page(std::string(GANTRY_SOURCE_DIR) + "/docs/adding-a-policy.md");
  std::vector<std::string> stages;
  std::string line;
  bool in_section = false;
  while (std::getline(page, line)) {
    if (line.starts_with("## ")) in_section = line == "## The pass's stages";
    if (!in_section || !line.starts_with("| `")) continue;
    const std::size_t end = line.find('`', 3);
    stages.push_back(line.substr(3, end - 3));
  }
  return stages;
}

TEST(PassStages, TheDocsListTheStagesInTheOrderAPassRunsThem) {
  std::vector<std::string> in_code;
  for (std::string_view name : SchedulerCore::pass_stage_names()) in_code.emplace_back(name);
  EXPECT_EQ(documented_stages(), in_code);
  ASSERT_FALSE(in_code.empty());
  EXPECT_EQ(in_code.front(), "lifecycle-waits");
  EXPECT_EQ(in_code.back(), "end");
}

}  // namespace
}  // namespace gantry::hub
