#include "console/table.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gantry::console {
namespace {

TEST(Table, AlignsColumnsToTheWidestCellAndLeavesNoTrailingSpaces) {
  Table table({"NAME", "PHASE", "REASON"});
  table.add_row({"a", "Running", ""});
  table.add_row({"longer-name", "Pending", "waiting for 8 GPUs"});
  EXPECT_EQ(table.render(),
            "NAME          PHASE     REASON\n"
            "a             Running\n"
            "longer-name   Pending   waiting for 8 GPUs\n");
}

TEST(Table, MeasuresUtf8ByCodePoints) {
  Table table({"N", "X"});
  table.add_row({"\xc3\xa9t\xc3\xa9", "1"});  // "été": 3 code points, 5 bytes
  table.add_row({"abcd", "2"});
  EXPECT_EQ(table.render(), "N      X\n\xc3\xa9t\xc3\xa9    1\nabcd   2\n");
}

TEST(Table, IndentsEveryLine) {
  Table table({"A", "B"});
  table.add_row({"1", "2"});
  EXPECT_EQ(table.render("  "), "  A   B\n  1   2\n");
}

TEST(Table, RefusesARowWithTheWrongNumberOfCells) {
  Table table({"A", "B"});
  EXPECT_THROW(table.add_row({"only one"}), std::invalid_argument);
  EXPECT_TRUE(table.empty());
}

TEST(RenderFields, AlignsValuesAndIndentsContinuationLines) {
  EXPECT_EQ(render_fields({{"Name", "job"}, {"Annotations", "a=1\nb=2"}, {"Empty", ""}}),
            "Name:         job\n"
            "Annotations:  a=1\n"
            "              b=2\n"
            "Empty:\n");
}

}  // namespace
}  // namespace gantry::console
