#include "support/random_hex.hpp"

#include <gtest/gtest.h>

namespace gantry::support {
namespace {

TEST(RandomHex, GivesTwoLowercaseHexDigitsPerByteAndDiffersEachTime) {
  const std::string first = random_hex(8);
  EXPECT_EQ(first.size(), 16u);
  EXPECT_EQ(first.find_first_not_of("0123456789abcdef"), std::string::npos) << first;
  EXPECT_NE(random_hex(8), first);
  EXPECT_EQ(random_hex(0), "");
}

}  // namespace
}  // namespace gantry::support
