// get jobs -l: kubectl's equality and existence requirements on labels.
#include "console/label_selector.hpp"

#include <gtest/gtest.h>

#include "console/arguments.hpp"

namespace gantry::console {
namespace {

bool selects(const std::string& selector, const protocol::Labels& labels) {
  return matches(parse_label_selector(selector), labels);
}

TEST(LabelSelector, EveryRequirementMustHoldAsKubectlReadsThem) {
  const protocol::Labels labels{
      {"gantry.io/array-job", "sweep"}, {"team", "vision"}, {"empty", ""}};
  EXPECT_TRUE(selects("gantry.io/array-job=sweep", labels));
  EXPECT_TRUE(selects("team==vision", labels));
  EXPECT_TRUE(selects("team=vision,gantry.io/array-job=sweep", labels));
  EXPECT_FALSE(selects("team=vision,gantry.io/array-job=other", labels));
  EXPECT_TRUE(selects("team!=nlp", labels));
  EXPECT_TRUE(selects("missing!=x", labels)) << "!= holds where the key is absent";
  EXPECT_FALSE(selects("team!=vision", labels));
  EXPECT_TRUE(selects("team", labels));
  EXPECT_FALSE(selects("missing", labels));
  EXPECT_TRUE(selects("!missing", labels));
  EXPECT_FALSE(selects("!team", labels));
  EXPECT_TRUE(selects("empty=", labels));
  EXPECT_TRUE(selects(" team = vision , !missing ", labels));
}

TEST(LabelSelector, WhatItCannotReadIsAUsageErrorNamingTheRequirement) {
  for (const char* bad : {"", "a=b,", "=x", "a=b=c", "team in (a,b)", "!", "a!=b c"}) {
    try {
      parse_label_selector(bad);
      ADD_FAILURE() << "\"" << bad << "\" was read";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("-l: cannot read"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gantry::console
