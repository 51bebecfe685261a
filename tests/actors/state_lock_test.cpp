#include "actors/state_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "test_support.hpp"

namespace gantry::actors {
namespace {

TEST(StateLockTest, ASecondHolderIsRefusedWithTheFirstNamed) {
  testing::TempDir dir;
  std::optional<StateLock> first(std::in_place, dir.path() / "state");
  const std::string pid = "pid " + std::to_string(::getpid());
  EXPECT_NE(StateLock::holder(dir.path() / "state").find(pid), std::string::npos);
  try {
    StateLock second(dir.path() / "state");
    FAIL() << "two holders of one state directory";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("in use by gantry-hub " + pid), std::string::npos) << what;
    EXPECT_NE(what.find("hub.lock"), std::string::npos) << what;
  }
  first.reset();
  EXPECT_EQ(StateLock::holder(dir.path() / "state"), "");
  StateLock again(dir.path() / "state");  // the lock went with its holder
}

}  // namespace
}  // namespace gantry::actors
