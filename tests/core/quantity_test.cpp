#include "hub/quantity.hpp"

#include <gtest/gtest.h>

#include "hub/resources.hpp"

namespace gantry::hub {
namespace {

TEST(Quantity, ParsesKubernetesForms) {
  EXPECT_EQ(parse_quantity_milli("500m"), 500);
  EXPECT_EQ(parse_quantity_milli("2"), 2000);
  EXPECT_EQ(parse_quantity_milli("1.5"), 1500);
  EXPECT_EQ(parse_quantity_milli("10Gi"), 10LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(parse_quantity_milli("128Mi"), 128LL * 1024 * 1024 * 1000);
  EXPECT_EQ(parse_quantity_milli("1k"), 1000 * 1000);
  EXPECT_EQ(parse_quantity_milli("1e3"), 1000 * 1000);
  EXPECT_EQ(parse_quantity_milli("+3"), 3000);
  EXPECT_EQ(parse_quantity_milli("0.1m"), 1);  // rounds up like Kubernetes
}

TEST(Quantity, RefusesWhatIsNotAQuantity) {
  for (const char* bad : {"", "abc", "-1", "1.2.3", "10Qi", "Gi", "1e", "1e99"})
    EXPECT_THROW(parse_quantity_milli(bad), std::invalid_argument) << bad;
}

TEST(Quantity, ErrorNamesTheText) {
  try {
    parse_quantity_milli("12x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("12x"), std::string::npos);
  }
}

TEST(Quantity, FormatsForPeople) {
  EXPECT_EQ(format_quantity("cpu", 500), "500m");
  EXPECT_EQ(format_quantity("cpu", 4000), "4");
  EXPECT_EQ(format_quantity("memory", 16LL * 1024 * 1024 * 1024 * 1000), "16Gi");
  EXPECT_EQ(format_quantity("memory", 1000 * 1000), "1000");
  EXPECT_EQ(format_quantity("nvidia.com/gpu", 8000), "8");
}

TEST(ResourceVector, ListRoundTripAndComparison) {
  const protocol::ResourceList list{
      {"cpu", 2000}, {"nvidia.com/gpu", 8000}, {"example.com/fpga", 1000}};
  const ResourceVector v = ResourceVector::from_list(list);
  EXPECT_EQ(v.to_list(), list);
  EXPECT_EQ(v.gpus(), 8);
  ResourceVector small;
  small.set(kCpu, 1000);
  EXPECT_TRUE(small.fits_in(v));
  EXPECT_FALSE(v.fits_in(small));
  ResourceId short_of = 0;
  ASSERT_TRUE(v.first_excess(small, short_of));
  EXPECT_EQ(short_of, kCpu);
  EXPECT_EQ((v - v), ResourceVector{});
}

}  // namespace
}  // namespace gantry::hub
