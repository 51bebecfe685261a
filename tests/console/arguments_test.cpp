#include "console/arguments.hpp"

#include <gtest/gtest.h>

#include "console/command_table.hpp"

namespace gantry::console {
namespace {

using std::chrono::milliseconds;

Invocation parse(const std::vector<std::string>& args, const char* env_hub = nullptr) {
  return parse_arguments(args, env_hub);
}

// The UsageError text for `args`; fails the test if they parse.
std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "arguments were accepted";
  return "";
}

TEST(Arguments, DefaultsToTheLocalHubAndFiveSeconds) {
  const Invocation invocation = parse({"get", "jobs"});
  EXPECT_EQ(invocation.hub, "tcp://127.0.0.1:7801");
  EXPECT_EQ(invocation.request_timeout, milliseconds(5000));
  EXPECT_EQ(invocation.command, "get");
  EXPECT_EQ(invocation.kind, "jobs");
  EXPECT_FALSE(invocation.json);
}

TEST(Arguments, HubComesFromTheFlagThenTheEnvironment) {
  EXPECT_EQ(parse({"get", "jobs"}, "tcp://10.0.0.1:9000").hub, "tcp://10.0.0.1:9000");
  EXPECT_EQ(parse({"--hub", "tcp://h:1", "get", "jobs"}, "tcp://10.0.0.1:9000").hub, "tcp://h:1");
  EXPECT_EQ(parse({"get", "jobs", "--hub=tcp://h:2"}).hub, "tcp://h:2");
  EXPECT_EQ(parse({"get", "jobs"}, "").hub, "tcp://127.0.0.1:7801");
}

TEST(Arguments, HubMayListSeveralEndpointsEachOfThemChecked) {
  EXPECT_EQ(parse({"--hub", "tcp://a:1,tcp://b:2", "get", "jobs"}).hub, "tcp://a:1,tcp://b:2");
  EXPECT_EQ(parse({"get", "jobs"}, "tcp://a:1,tcp://b:2").hub, "tcp://a:1,tcp://b:2");
  EXPECT_THROW(parse({"--hub", "tcp://a:1,b:2", "get", "jobs"}), UsageError);
  EXPECT_THROW(parse({"--hub", "tcp://a:1,", "get", "jobs"}), UsageError);
}

TEST(Arguments, ParsesEveryCommand) {
  const Invocation submit = parse({"submit", "-f", "job.yaml"});
  EXPECT_EQ(submit.files, std::vector<std::string>{"job.yaml"});
  EXPECT_EQ(parse({"submit", "-f", "-"}).files, std::vector<std::string>{"-"});
  const Invocation several = parse({"submit", "-f", "a.yaml", "-R", "--filename", "jobs/"});
  EXPECT_EQ(several.files, (std::vector<std::string>{"a.yaml", "jobs/"}));
  EXPECT_TRUE(several.recursive);
  EXPECT_EQ(parse({"get", "jobs", "-l", "team=vision,!gpu"}).label_filter.size(), 2u);
  EXPECT_TRUE(parse({"get", "clusters", "-o", "json"}).json);
  EXPECT_EQ(parse({"get", "queue"}).kind, "queues");
  const Invocation one =
      parse({"get", "job", "llm", "-o", "yaml", "--queue", "q", "--cluster", "c"});
  EXPECT_EQ(one.kind, "jobs");
  EXPECT_EQ(one.name, "llm");
  EXPECT_TRUE(one.yaml);
  EXPECT_EQ(one.queue_filter, "q");
  EXPECT_EQ(one.cluster_filter, "c");
  EXPECT_TRUE(parse({"get", "clusters", "-o", "name"}).names_only);
  const Invocation describe = parse({"describe", "cluster", "east"});
  EXPECT_EQ(describe.kind, "cluster");
  EXPECT_EQ(describe.name, "east");
  EXPECT_EQ(parse({"cancel", "job", "j1"}).name, "j1");
  EXPECT_EQ(parse({"apply", "--filename=q.yaml"}).files, std::vector<std::string>{"q.yaml"});
  const Invocation del = parse({"delete", "queue", "research"});
  EXPECT_EQ(del.kind, "queue");
  EXPECT_EQ(del.name, "research");
  for (const std::string action : {"cordon", "uncordon", "drain"}) {
    const Invocation invocation = parse({action, "cluster", "east"});
    EXPECT_EQ(invocation.command, action);
    EXPECT_EQ(invocation.kind, "cluster");
    EXPECT_EQ(invocation.name, "east");
  }
  EXPECT_EQ(parse({"drain", "clusters", "east"}).kind, "cluster");
  EXPECT_EQ(parse({"version"}).command, "version");
  EXPECT_EQ(parse({}).command, "help");
  EXPECT_EQ(parse({"help", "get"}).command, "help");
  EXPECT_EQ(parse({"get", "jobs", "--help"}).command, "help");
}

TEST(Arguments, WaitTakesPhaseCaseInsensitivelyAndItsOwnTimeout) {
  const Invocation wait = parse({"wait", "job", "j1", "--for", "phase=running", "--timeout", "2m"});
  EXPECT_EQ(wait.wait_phase, "Running");
  EXPECT_EQ(wait.wait_timeout, milliseconds(120000));
  EXPECT_EQ(wait.request_timeout, milliseconds(5000));
  const Invocation both = parse(
      {"wait", "job", "j1", "--for=phase=Completed", "--timeout=0s", "--request-timeout", "500ms"});
  EXPECT_EQ(both.wait_timeout, milliseconds(0));
  EXPECT_EQ(both.request_timeout, milliseconds(500));
  EXPECT_EQ(parse({"wait", "job", "j1", "--for", "phase=Failed"}).wait_timeout,
            milliseconds(30000));
}

TEST(Arguments, ErrorsNameTheBadArgument) {
  EXPECT_NE(usage_error({"frobnicate"}).find("\"frobnicate\""), std::string::npos);
  EXPECT_NE(usage_error({"get", "pods"}).find("\"pods\""), std::string::npos);
  EXPECT_NE(usage_error({"get", "jobs", "--verbose"}).find("\"--verbose\""), std::string::npos);
  EXPECT_NE(usage_error({"get", "jobs", "-o", "xml"}).find("\"xml\""), std::string::npos);
  EXPECT_NE(usage_error({"get", "jobs", "one", "extra"}).find("\"extra\""), std::string::npos);
  EXPECT_NE(usage_error({"get"}).find("KIND is required"), std::string::npos);
  EXPECT_NE(usage_error({"submit"}).find("-f"), std::string::npos);
  EXPECT_NE(usage_error({"submit", "-f"}).find("--filename: 1 required FILE|DIR missing"),
            std::string::npos);
  EXPECT_NE(usage_error({"get", "jobs", "-f", "x"}).find("get does not take -f"),
            std::string::npos);
  EXPECT_NE(usage_error({"--timeout", "5x", "get", "jobs"}).find("--timeout"), std::string::npos);
  EXPECT_NE(usage_error({"--timeout", "0s", "get", "jobs"}).find("longer than 0"),
            std::string::npos);
  EXPECT_NE(usage_error({"--hub", "localhost:7801", "get", "jobs"}).find("\"localhost:7801\""),
            std::string::npos);
  EXPECT_NE(usage_error({"wait", "job", "j"}).find("--for"), std::string::npos);
  EXPECT_NE(usage_error({"wait", "job", "j", "--for", "phase=Done"}).find("\"Done\""),
            std::string::npos);
  EXPECT_NE(usage_error({"wait", "job", "j", "--for", "condition=Ready"}).find("phase=PHASE"),
            std::string::npos);
  EXPECT_NE(usage_error({"cancel", "queue", "q"}).find("\"queue\""), std::string::npos);
  EXPECT_EQ(usage_error({"cordon", "node", "east"}),
            "cordon: unknown kind \"node\" (expected cluster)");
  EXPECT_EQ(usage_error({"uncordon", "job", "east"}),
            "uncordon: unknown kind \"job\" (expected cluster)");
  EXPECT_EQ(usage_error({"drain", "queue", "east"}),
            "drain: unknown kind \"queue\" (expected cluster)");
  EXPECT_NE(usage_error({"drain", "cluster"}).find("NAME is required"), std::string::npos);
  EXPECT_NE(usage_error({"cordon", "cluster", "east", "west"}).find("\"west\""), std::string::npos);
  EXPECT_NE(usage_error({"drain", "cluster", "east", "-o", "json"}).find("drain does not take -o"),
            std::string::npos);
  EXPECT_NE(usage_error({"get", "jobs", "-o", "json", "-o", "json"}).find("twice"),
            std::string::npos);
}

TEST(Arguments, CommandFlagsMayComeBeforeTheCommand) {
  EXPECT_TRUE(parse({"-o", "json", "get", "jobs"}).json);
  EXPECT_EQ(parse({"--filename=job.yaml", "submit"}).files, std::vector<std::string>{"job.yaml"});
  const Invocation wait = parse({"--timeout", "2m", "--for=phase=Running", "wait", "job", "j1"});
  EXPECT_EQ(wait.wait_phase, "Running");
  EXPECT_EQ(wait.wait_timeout, milliseconds(120000));
  EXPECT_EQ(wait.request_timeout, milliseconds(5000));
  EXPECT_NE(usage_error({"-o", "json", "get", "jobs", "-o", "table"}).find("twice"),
            std::string::npos);
  EXPECT_NE(usage_error({"-f", "x", "get", "jobs"}).find("get does not take -f"),
            std::string::npos);
}

TEST(Arguments, HelpListsEveryCommandOfTheTable) {
  const std::string help = usage_text();
  for (const CommandSpec* command : command_table()) {
    EXPECT_NE(help.find("\n  " + std::string(command->synopsis)), std::string::npos)
        << command->name;
    EXPECT_EQ(find_command(command->name), command);
    EXPECT_EQ(parse({std::string(command->name), "--help"}).command, "help");
  }
  EXPECT_EQ(find_command("frobnicate"), nullptr);
}

TEST(Arguments, EnvironmentHubIsValidatedToo) {
  try {
    parse({"get", "jobs"}, "not-an-endpoint");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("GANTRY_HUB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gantry::console
