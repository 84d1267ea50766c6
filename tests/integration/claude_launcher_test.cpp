// `agentworks claude [ARGS...]` (R-C10): starts Claude Code with the agentworks development channel enabled, so
// the person approves it in Claude's own prompt. A fake `claude` on PATH records its argv; the real Claude Code
// is exercised by the end-to-end tests.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli_runner.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ClaudeLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = home_.path("fakebin");
    log_ = home_.path("claude-argv.log");
    fs::create_directories(bin_);
    // One argument a line, then the exit code the test asked for: shows the CLI was replaced by this program.
    // The channel variable the plugin's MCP server reads goes to a file of its own.
    std::ofstream(bin_ / "claude") << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" << log_.string()
                                   << "'; done\nprintf '%s' \"$AGENTWORKS_CLAUDE_CHANNEL\" > '" << log_.string()
                                   << ".env'\nexit ${FAKE_CLAUDE_EXIT:-0}\n";
    fs::permissions(bin_ / "claude", fs::perms::owner_all, fs::perm_options::add);
  }

  EnvOverrides env(const std::string& path) const {
    EnvOverrides e = home_.env();
    e["PATH"] = path;
    e["AGENTWORKS_CLAUDE_BIN"] = std::nullopt;
    return e;
  }

  std::vector<std::string> recorded() const {
    std::vector<std::string> lines;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  TempHome home_;
  fs::path bin_;
  fs::path log_;
};

// R-C10: the channel flag with the plugin's server, then the person's arguments unchanged and in order; the
// process is replaced by claude (its exit code is the command's).
TEST_F(ClaudeLauncherTest, ExecsClaudeWithTheDevelopmentChannelAndPassesArgsThrough_RC10) {
  EnvOverrides e = env(bin_.string() + ":/usr/bin:/bin");
  e["FAKE_CLAUDE_EXIT"] = "7";
  const CliResult r = run_cli({"claude", "-p", "hello there", "--model", "m", "-c"}, e);
  EXPECT_EQ(r.exit_code, 7) << r.describe();
  const std::vector<std::string> expected = {"--dangerously-load-development-channels", "plugin:agentworks@agentworks",
                                             "-p", "hello there", "--model", "m", "-c"};
  EXPECT_EQ(recorded(), expected);
  // Only a Claude started this way turns the plugin's MCP server into a channel (mcp_serve.cpp).
  std::ifstream env_file(log_.string() + ".env");
  std::string channel;
  std::getline(env_file, channel);
  EXPECT_EQ(channel, "1");
}

// R-C10: with no arguments only the channel flag is added.
TEST_F(ClaudeLauncherTest, NoArgsAddsOnlyTheChannelFlag_RC10) {
  const CliResult r = run_cli({"claude"}, env(bin_.string() + ":/usr/bin:/bin"));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const std::vector<std::string> expected = {"--dangerously-load-development-channels", "plugin:agentworks@agentworks"};
  EXPECT_EQ(recorded(), expected);
}

// R-C10: --dry-run --json prints the argv it would run and runs nothing; $AGENTWORKS_CLAUDE_BIN wins over PATH.
TEST_F(ClaudeLauncherTest, DryRunJsonPrintsTheCommandLine_RC10) {
  EnvOverrides e = env("/usr/bin:/bin");
  e["AGENTWORKS_CLAUDE_BIN"] = (bin_ / "claude").string();
  const CliResult r = run_cli({"claude", "--dry-run", "--json", "--resume", "abc"}, e);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const json argv = r.json().at("argv");
  EXPECT_EQ(argv, json::array({(bin_ / "claude").string(), "--dangerously-load-development-channels",
                               "plugin:agentworks@agentworks", "--resume", "abc"}));
  EXPECT_FALSE(fs::exists(log_));
}

// R-C10: no claude anywhere is a not_found error that says what to install.
TEST_F(ClaudeLauncherTest, MissingClaudeIsNotFound_RC10) {
  const CliResult r = run_cli({"claude", "--json"}, env(home_.path("empty").string()));
  EXPECT_EQ(r.exit_code, 4) << r.describe();
  EXPECT_EQ(r.error_code(), "not_found") << r.describe();
  EXPECT_NE(r.out.find("@anthropic-ai/claude-code"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace agentworks::testing
