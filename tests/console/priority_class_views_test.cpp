// gantryctl get priorityclasses and the readable quantities of get queues.
#include <gtest/gtest.h>

#include "console/queue_views.hpp"
#include "console/units.hpp"

namespace gantry::console {
namespace {

TEST(PriorityClassViews, TableAsKubectl) {
  const std::string table = render_priority_classes_table(
      {{"high-priority", 1000, false, "PreemptLowerPriority", "", true},
       {"urgent", 100000, true, "Never", "on call", false}});
  EXPECT_NE(table.find("NAME"), std::string::npos);
  EXPECT_NE(table.find("GLOBAL-DEFAULT"), std::string::npos);
  EXPECT_NE(table.find("PREEMPTION-POLICY"), std::string::npos);
  EXPECT_NE(table.find("urgent"), std::string::npos);
  EXPECT_NE(table.find("100000"), std::string::npos);
  EXPECT_NE(table.find("Never"), std::string::npos);
  const std::string json = render_priority_classes_json({{"urgent", 5, true, "Never", "d", false}});
  EXPECT_NE(json.find("\"preemptionPolicy\""), std::string::npos) << json;
}

TEST(ReadableQuantities, AsPeopleWriteThem) {
  EXPECT_EQ(format_quantity_readable("memory", 64LL * 1024 * 1024 * 1024 * 1000), "64Gi");
  EXPECT_EQ(format_quantity_readable("memory", 659706976665600), "614.4Gi");
  EXPECT_EQ(format_quantity_readable("nvidia.com/gpu", 13333), "13.3");
  EXPECT_EQ(format_quantity_readable("nvidia.com/gpu", 30000), "30");
  EXPECT_EQ(format_quantity_readable("cpu", 33333), "33.3");
  EXPECT_EQ(format_quantity_readable("cpu", 250), "250m");
}

TEST(ReadableQuantities, QueuesTableShowsNoMilliUnits) {
  protocol::QueueInfo queue;
  queue.name = "light";
  queue.state = "Open";
  queue.deserved = {{"memory", 659706976665600}, {"nvidia.com/gpu", 13333}};
  const std::string table = render_queues_table({queue}, /*wide=*/true);  // FAIR SHARE
  EXPECT_NE(table.find("memory=614.4Gi"), std::string::npos) << table;
  EXPECT_NE(table.find("nvidia.com/gpu=13.3"), std::string::npos) << table;
  EXPECT_EQ(table.find("659706976665600m"), std::string::npos) << table;
}

}  // namespace
}  // namespace gantry::console
