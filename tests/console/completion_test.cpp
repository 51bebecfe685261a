// gantryctl completion bash, run by a real bash: the script completes
// commands, kinds, flags and flag values from the command table, and the
// names of hub objects by asking `gantryctl get KIND -o name` (here a stub
// gantryctl on PATH that records what it was asked) with the line's --hub.
#include "console/completion.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "console/arguments.hpp"
#include "support/temp_dir.hpp"

namespace gantry::console {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class Completion : public ::testing::Test {
 protected:
  Completion() {
    dir_.write("gantryctl.bash", completion_script("bash"));
    std::filesystem::create_directory(dir_.path() / "bin");
    const auto stub = dir_.write("bin/gantryctl", "#!/bin/sh\necho \"$@\" > \"" +
                                                      (dir_.path() / "asked").string() +
                                                      "\"\nprintf 'job/alpha\\njob/beta\\n'\n");
    ::chmod(stub.c_str(), 0755);
  }

  // What bash offers for the line `words`, completing its last word.
  std::vector<std::string> offered(const std::vector<std::string>& words) const {
    std::string line = "gantryctl";
    for (const std::string& word : words) line += " '" + word + "'";
    const std::string program = "PATH='" + (dir_.path() / "bin").string() +
                                ":'\"$PATH\"; source '" +
                                (dir_.path() / "gantryctl.bash").string() + "'; COMP_WORDS=(" +
                                line + "); COMP_CWORD=" + std::to_string(words.size()) +
                                "; _gantryctl; printf '%s\\n' \"${COMPREPLY[@]}\"";
    const auto script = dir_.write("run.sh", program);
    FILE* pipe = ::popen(("bash '" + script.string() + "'").c_str(), "r");
    std::string output;
    std::array<char, 4096> buffer{};
    for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
      output.append(buffer.data(), got);
    EXPECT_EQ(::pclose(pipe), 0) << output;
    std::vector<std::string> lines;
    std::istringstream text(output);
    for (std::string one; std::getline(text, one);)
      if (!one.empty()) lines.push_back(one);
    return lines;
  }

  std::string asked() const {
    std::ifstream file(dir_.path() / "asked");
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

  support::TempDir dir_{"completion"};
};

TEST_F(Completion, CommandsKindsFlagsAndFlagValuesComeFromTheCommandTable) {
  EXPECT_THAT(offered({"c"}), ElementsAre("cancel", "cordon", "completion"));
  EXPECT_THAT(offered({"describe", ""}), ElementsAre("job", "queue", "cluster"));
  EXPECT_THAT(offered({"get", "p"}), ElementsAre("priorityclasses"));
  EXPECT_THAT(offered({"get", "jobs", "--q"}), ElementsAre("--queue"));
  EXPECT_THAT(offered({"get", "jobs", "-o", "y"}), ElementsAre("yaml"));
  EXPECT_THAT(offered({"--hub", "tcp://h:7801", "get", "c"}), ElementsAre("clusters"));
  EXPECT_THAT(offered({"--ins"}), ElementsAre("--insecure"));
  EXPECT_THAT(offered({"help", "dr"}), ElementsAre("drain"));
  EXPECT_THAT(offered({"completion", ""}), ElementsAre("bash", "zsh"));
}

TEST_F(Completion, NamesAreAskedOfTheHubTheLineNames) {
  EXPECT_THAT(offered({"--hub", "tcp://h:7801", "describe", "job", "a"}), ElementsAre("alpha"));
  EXPECT_EQ(asked(), "--hub tcp://h:7801 get job -o name\n");
  EXPECT_THAT(offered({"cancel", "job", ""}), ElementsAre("alpha", "beta"));
  // No name after a name, and none for what the hub does not list.
  EXPECT_THAT(offered({"describe", "job", "alpha", ""}), IsEmpty());
  EXPECT_THAT(offered({"keys", "generate", ""}), IsEmpty());
  EXPECT_THAT(offered({"get", "jobs", "--queue", "b"}), ElementsAre("beta"));
  EXPECT_EQ(asked(), "get queues -o name\n");
}

TEST(CompletionScript, ZshRunsTheBashOneAndOtherShellsAreRefused) {
  const std::string zsh = completion_script("zsh");
  EXPECT_EQ(zsh.rfind("#compdef gantryctl\n", 0), 0u);
  EXPECT_NE(zsh.find("bashcompinit"), std::string::npos);
  EXPECT_THROW(completion_script("fish"), UsageError);
}

}  // namespace
}  // namespace gantry::console
