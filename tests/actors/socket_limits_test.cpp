// The limits' pure parts: the error a too-big frame is answered with, the
// options a socket gets, the file-descriptor budget, the log throttle.
#include "actors/socket_limits.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <limits>

#include "actors/fd_limit.hpp"
#include "actors/log_throttle.hpp"

namespace gantry::actors {
namespace {

using namespace std::chrono_literals;

TEST(SocketLimitsTest, FrameWithinTheLimitHasNoError) {
  SocketLimits limits;
  limits.max_frame_bytes = 100;
  EXPECT_FALSE(oversized_frame_error(0, limits));
  EXPECT_FALSE(oversized_frame_error(100, limits));
}

TEST(SocketLimitsTest, FrameOverTheLimitIsAnsweredWithSizeAndLimit) {
  SocketLimits limits;
  limits.max_frame_bytes = 100;
  EXPECT_EQ(oversized_frame_error(101, limits),
            "frame of 101 bytes exceeds the limit of 100 bytes (--max-frame-bytes)");
  EXPECT_TRUE(oversized_frame_error(std::numeric_limits<std::size_t>::max(), limits));
}

TEST(SocketLimitsTest, DropSizeIsTwiceTheAnsweredLimit) {
  SocketLimits limits;
  EXPECT_EQ(limits.max_frame_bytes, 16 * 1024 * 1024);
  EXPECT_EQ(drop_frame_bytes(limits), 32 * 1024 * 1024);
  limits.max_frame_bytes = -1;  // no limit, as libzmq spells it
  EXPECT_EQ(drop_frame_bytes(limits), -1);
  EXPECT_FALSE(oversized_frame_error(std::numeric_limits<std::size_t>::max(), limits));
  limits.max_frame_bytes = std::numeric_limits<std::int64_t>::max();
  EXPECT_GT(drop_frame_bytes(limits), 0);
}

TEST(SocketLimitsTest, SocketCarriesTheLimits) {
  zmq::context_t context;
  zmq::socket_t router(context, zmq::socket_type::router);
  SocketLimits limits;
  limits.max_frame_bytes = 1000;
  limits.handshake_timeout = 2s;
  limits.heartbeat_interval = 3s;
  limits.heartbeat_timeout = 9s;
  limits.receive_queue_messages = 7;
  limits.listen_backlog = 11;
  apply_socket_limits(router, limits);
  EXPECT_EQ(router.get(zmq::sockopt::maxmsgsize), 2000);
  EXPECT_EQ(router.get(zmq::sockopt::handshake_ivl), 2000);
  EXPECT_EQ(router.get(zmq::sockopt::heartbeat_ivl), 3000);
  EXPECT_EQ(router.get(zmq::sockopt::heartbeat_timeout), 9000);
  EXPECT_EQ(router.get(zmq::sockopt::rcvhwm), 7);
  EXPECT_EQ(router.get(zmq::sockopt::backlog), 11);
}

TEST(FdLimitTest, SoftLimitIsRaisedToTheHardLimit) {
  spdlog::set_level(spdlog::level::err);
  const FdLimit limit = raise_fd_limit();
  rlimit now{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, now.rlim_max);
  EXPECT_EQ(limit.soft, now.rlim_cur);
  EXPECT_EQ(limit.hard, now.rlim_max);
  EXPECT_LE(limit.before, limit.soft);
}

TEST(FdLimitTest, ConnectionsShareWhatIsLeftAfterTheReserve) {
  EXPECT_EQ(connections_within_fd_limit(1024, 2, 1'048'576), 1024);
  EXPECT_EQ(connections_within_fd_limit(1024, 2, 1024), (1024 - kReservedDescriptors) / 2);
  EXPECT_EQ(connections_within_fd_limit(1024, 2, 100), 1);
  EXPECT_EQ(connections_within_fd_limit(0, 2, 1'048'576), 1);
}

TEST(LogThrottleTest, OneLinePerIntervalCountingWhatWasLeftOut) {
  LogThrottle throttle(10s);
  const LogThrottle::TimePoint start{std::chrono::hours(1)};
  EXPECT_EQ(throttle.admit(start), 0u);
  EXPECT_FALSE(throttle.admit(start + 1s));
  EXPECT_FALSE(throttle.admit(start + 9s));
  EXPECT_EQ(throttle.admit(start + 10s), 2u);
  EXPECT_FALSE(throttle.admit(start + 11s));
  EXPECT_EQ(throttle.admit(start + 30s), 1u);
}

}  // namespace
}  // namespace gantry::actors
