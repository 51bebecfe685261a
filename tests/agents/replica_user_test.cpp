// Who the process executor's replicas run as (--run-as, --allow-root): the
// password database lookup and the refusals that keep replicas off root.
#include "agents/replica_user.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

constexpr uid_t kRoot = 0;
constexpr uid_t kSomeUser = 1000;

// The refusal's message, "" when there is none.
std::string refusal(const std::string& run_as, bool allow_root, uid_t agent_euid) {
  try {
    replica_user_for(run_as, allow_root, agent_euid);
  } catch (const std::invalid_argument& refused) {
    return refused.what();
  }
  return "";
}

TEST(ReplicaUser, NobodyByNameOrUidIsFoundWithItsGroupAndHome) {
  for (const std::string given : {"nobody", "65534"}) {
    const ReplicaUser user = find_replica_user(given);
    EXPECT_EQ(user.name, "nobody");
    EXPECT_EQ(user.uid, 65534u);
    EXPECT_EQ(user.gid, 65534u);  // Debian's nogroup
    EXPECT_EQ(user.home, "/nonexistent");
    EXPECT_NE(std::find(user.groups.begin(), user.groups.end(), user.gid), user.groups.end());
  }
}

TEST(ReplicaUser, AnUnknownUserIsRefusedByName) {
  EXPECT_EQ(refusal("no-such-gantry-user", false, kRoot),
            "--run-as no-such-gantry-user: no such user");
  EXPECT_EQ(refusal("4000000000", false, kRoot), "--run-as 4000000000: no such user");
}

TEST(ReplicaUser, AnAgentRunningAsRootWithoutRunAsIsRefusedUnlessAllowRoot) {
  const std::string refused = refusal("", false, kRoot);
  EXPECT_NE(refused.find("--run-as USER"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--allow-root"), std::string::npos) << refused;
  EXPECT_EQ(replica_user_for("", true, kRoot), std::nullopt);  // as the agent: root, on purpose
}

TEST(ReplicaUser, RunAsRootIsRefusedUnlessAllowRoot) {
  for (const std::string root : {"root", "0"}) {
    const std::string refused = refusal(root, false, kRoot);
    EXPECT_NE(refused.find("--run-as " + root + ": replicas would run as root"), std::string::npos)
        << refused;
    EXPECT_NE(refused.find("--allow-root"), std::string::npos) << refused;
    EXPECT_EQ(replica_user_for(root, true, kRoot)->uid, 0u);
  }
}

TEST(ReplicaUser, ARootAgentSwitchesToTheNamedUser) {
  const std::optional<ReplicaUser> user = replica_user_for("nobody", false, kRoot);
  ASSERT_TRUE(user.has_value());
  EXPECT_EQ(user->uid, 65534u);
}

TEST(ReplicaUser, ANonRootAgentRunsReplicasAsItself) {
  EXPECT_EQ(replica_user_for("", false, kSomeUser), std::nullopt);
  // Already that user: nothing to switch (setgroups would fail without root).
  EXPECT_EQ(replica_user_for("65534", false, 65534), std::nullopt);
}

TEST(ReplicaUser, AWorkDirectoryBehindADirectoryTheUserMayNotSearchIsNamed) {
  const support::TempDir temp("gantry-reach");  // mkdtemp: 0700, this test's
  const ReplicaUser nobody = find_replica_user("nobody");
  const std::string why = why_unreachable(nobody, temp.path() / "work" / "agent-east");
  EXPECT_EQ(why, "nobody cannot pass through " + temp.path().string() + " (mode 0700, owner uid " +
                     std::to_string(::geteuid()) + ", gid " + std::to_string(::getegid()) + ")");
  std::filesystem::permissions(temp.path(), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  EXPECT_EQ(why_unreachable(nobody, temp.path() / "work" / "agent-east"), "");
}

TEST(ReplicaUser, TheEnvironmentNamesTheReplicasUserAndKeepsTheRest) {
  const ReplicaUser user = find_replica_user("nobody");
  const char* agent_env[] = {"HOME=/root",   "PATH=/usr/bin:/bin", "USER=root",
                             "LOGNAME=root", "HOMELESS=kept",      nullptr};
  std::vector<std::string> env = environment_for_user(user, agent_env);
  std::sort(env.begin(), env.end());
  EXPECT_EQ(env, (std::vector<std::string>{"HOME=/nonexistent", "HOMELESS=kept", "LOGNAME=nobody",
                                           "PATH=/usr/bin:/bin", "USER=nobody"}));
}

}  // namespace
}  // namespace gantry::agents
