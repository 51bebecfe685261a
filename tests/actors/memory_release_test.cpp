// When FreedMemoryRelease gives memory back: after many connections closed and
// the count stayed put, once per fall.
#include "actors/memory_release.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gantry::actors {
namespace {

using namespace std::chrono_literals;

const FreedMemoryRelease::TimePoint kStart{std::chrono::hours(1)};

TEST(FreedMemoryReleaseTest, ReleasesOnceManyClosedAndTheCountSettled) {
  FreedMemoryRelease release(100, 5s);
  EXPECT_FALSE(release.on_sweep(500, kStart));
  EXPECT_FALSE(release.on_sweep(20, kStart + 1s));  // just fell: libzmq still freeing
  EXPECT_FALSE(release.on_sweep(20, kStart + 5s));
  EXPECT_TRUE(release.on_sweep(20, kStart + 6s));
  EXPECT_FALSE(release.on_sweep(20, kStart + 60s));  // nothing new to give back
}

TEST(FreedMemoryReleaseTest, FewClosedConnectionsAreNotWorthATrim) {
  FreedMemoryRelease release(100, 5s);
  EXPECT_FALSE(release.on_sweep(150, kStart));
  EXPECT_FALSE(release.on_sweep(51, kStart + 1s));
  EXPECT_FALSE(release.on_sweep(51, kStart + 60s));
  EXPECT_FALSE(release.on_sweep(50, kStart + 61s));  // the 100th closed
  EXPECT_TRUE(release.on_sweep(50, kStart + 66s));
}

TEST(FreedMemoryReleaseTest, KeepingLargeBuffersOutOfTheHeapIsHarmless) {
  keep_large_buffers_out_of_the_heap();
  std::string big(4 << 20, 'x');
  EXPECT_EQ(big.size(), 4u << 20);
}

}  // namespace
}  // namespace gantry::actors
