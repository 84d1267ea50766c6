// The agentworks MCP server inside the real Claude Code (R-C1): with the plugin installed by
// `agentworks attach claude --yes`, Claude Code starts `agentworks mcp serve` from the plugin's .mcp.json and
// offers its tools to the model. The mock model records the request bodies; the assertion is on the tools list
// of a main turn (or its list of deferred tools). Plugin MCP tools are named mcp__plugin_<plugin>_<server>__<tool>.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <set>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;

constexpr const char* kToolPrefix = "mcp__plugin_agentworks_agentworks__";

class ClaudeMcpE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    install_for("claude", env_);
  }

  // Names of the tools offered in a main turn's request body.
  static std::set<std::string> tool_names(const ModelRequest& r) {
    std::set<std::string> names;
    const json body = json::parse(r.body, nullptr, false);
    if (!body.is_object() || !body.contains("tools")) return names;
    for (const auto& t : body["tools"]) {
      if (t.is_object() && t.contains("name") && t["name"].is_string()) names.insert(t["name"].get<std::string>());
    }
    return names;
  }

  testing::EnvOverrides env_;
};

// R-C1: the five messaging tools reach the model of a Claude Code session started in the project.
TEST_F(ClaudeMcpE2eTest, PluginMcpToolsAreOfferedToTheModel_RC1) {
  const auto run = run_claude(env_, project_, {"-p", "which tools do you have"});
  ASSERT_EQ(run.exit_code, 0) << describe_run(run);
  const auto turn = model_->wait_for(
      [](const ModelRequest& r) { return r.main_turn && r.conversation.find("which tools") != std::string::npos; },
      std::chrono::seconds(10));
  ASSERT_TRUE(turn) << model_->describe();
  const std::set<std::string> names = tool_names(*turn);
  std::string all;
  for (const auto& n : names) all += n + " ";
  for (const std::string tool :
       {"agent_message_ack", "agent_message_no_reply", "agent_message_reply", "agent_message_send", "agent_message_read",
        "agent_message_peers"}) {
    // Claude Code 2.1.332 defers MCP tools: their names are listed in the request for ToolSearch to load, and
    // a loaded tool moves into tools[]. Either is the tool being offered; the prompt does not name them.
    const std::string name = kToolPrefix + tool;
    const bool offered = names.count(name) == 1 || turn->conversation.find(name) != std::string::npos;
    EXPECT_TRUE(offered) << name << " missing; tools[]: " << all << "\nconversation: " << turn->conversation;
  }
}

// R-C10: `agentworks claude ARGS` runs the real Claude Code with the development-channel flag (an unknown flag
// would stop it with a usage error) and the person's arguments: the prompt reaches the model. Print mode does not
// open channels (Claude Code's confirmation dialog is interactive), so this proves the launch, not the push.
TEST_F(ClaudeMcpE2eTest, LauncherStartsRealClaudeWithTheChannelFlag_RC10) {
  testing::EnvOverrides env = env_;
  env["AGENTWORKS_CLAUDE_BIN"] = claude_binary().string();
  const auto run = project_cli({"claude", "-p", "hello through the launcher"}, env);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  const auto turn = model_->wait_for(
      [](const ModelRequest& r) {
        return r.main_turn && r.conversation.find("hello through the launcher") != std::string::npos;
      },
      std::chrono::seconds(10));
  EXPECT_TRUE(turn) << model_->describe();
}

// A print-mode Claude Code in the project whose model calls agent_message_peers once; returns the tool result.
class ClaudeToolApprovalE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
  }
  // The person accepted the folder trust dialog (Claude Code 2.1.332 applies the project's permissions.allow only
  // in a trusted folder).
  void trust_project() {
    const auto state_path = home_.home() / ".claude.json";
    json state = json::parse(testing::read_file(state_path), nullptr, false);
    if (!state.is_object()) state = json::object();
    state["projects"][project_.string()]["hasTrustDialogAccepted"] = true;
    std::ofstream(state_path) << state.dump();
  }
  std::optional<ToolResult> call_peers() {
    trust_project();
    model_->queue_tool_call({"agent_message_peers", [](const ModelRequest&) { return std::string("{}"); }});
    const auto run = run_claude(env_, project_, {"-p", "list the peers"});
    note(describe_run(run));
    return model_->wait_for_tool_result("agent_message_peers", 0, std::chrono::seconds(10));
  }
  testing::EnvOverrides env_;
};

// without --allow-tools, print mode (no one to ask; folder trusted) refuses the plugin's tool: the result is Claude
// Code's refusal, the agentworks server never ran it.
TEST_F(ClaudeToolApprovalE2eTest, WithoutAllowToolsPrintModeRefusesTheCall_RH10) {
  install_for("claude", env_);
  const auto result = call_peers();
  ASSERT_TRUE(result) << model_->describe();
  EXPECT_EQ(result->tool, std::string(kToolPrefix) + "agent_message_peers");
  EXPECT_EQ(result->output.find("agentworks:"), std::string::npos) << result->output;
  EXPECT_NE(result->output.find("permission"), std::string::npos) << result->output;
}

// `attach claude --allow-tools` writes allow rules under the names Claude Code 2.1.332 really uses:
// the call reaches the agentworks MCP server (this chat is not attached, so the server's answer says so).
TEST_F(ClaudeToolApprovalE2eTest, AllowToolsRulesLetTheCallReachTheServer_RH10) {
  install_for("claude", env_, {"--allow-tools"});
  const auto result = call_peers();
  ASSERT_TRUE(result) << model_->describe();
  EXPECT_NE(result->output.find("agentworks:"), std::string::npos) << result->output;
  EXPECT_EQ(result->output.find("permission"), std::string::npos) << result->output;
}

}  // namespace
}  // namespace agentworks::e2e
