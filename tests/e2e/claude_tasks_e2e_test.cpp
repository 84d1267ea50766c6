// R-D5 with the real Claude Code TUI: the person's full connection (`agentworks mcp serve --full`, added to
// ~/.claude.json as a person's `claude mcp add` does) speaks the stateless revision with the tasks extension; the
// model's `functions_call` becomes a server-side task that Claude moves to the background at once, polls
// with tasks/get, and whose outcome starts a turn by itself with the call's result. The task is the call record.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/tmux_session.hpp"
#include "support/crew_folder.hpp"
#include "testing/binaries.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* kFullTool = "mcp__agentworks-full__functions_call";

class ClaudeTasksE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    install_for("claude", env_);
    accept_claude_first_run(env_);
    add_full_connection();
  }
  void TearDown() override {
    if (tui_ && HasFailure()) note("--- screen ---\n" + tui_->screen());
    tui_.reset();
    E2eTest::TearDown();
  }
  // The person's full connection for every project (the owner's login is the temp HOME's default), its tool
  // allowed.
  void add_full_connection() {
    const fs::path state_path = home_.home() / ".claude.json";
    json state = json::parse(testing::read_file(state_path));
    json server = {{"type", "stdio"}, {"command", testing::cli_binary()}, {"args", {"mcp", "serve", "--full"}}};
    state["mcpServers"]["agentworks-full"] = server;
    std::ofstream(state_path) << state.dump();
    const fs::path settings = project_ / ".claude" / "settings.local.json";
    fs::create_directories(settings.parent_path());
    std::ofstream(settings) << json{{"permissions", {{"allow", {kFullTool}}}}}.dump();
  }

  testing::EnvOverrides env_;
  std::unique_ptr<TmuxSession> tui_;
};

TEST_F(ClaudeTasksE2eTest, ACallRunsAsABackgroundTaskWhoseOutcomeStartsATurn_RD5) {
  testing::CrewFolder crew(fs::weakly_canonical(home_.path("crew-api")));
  crew.declare({testing::CrewFolder::function("echo", crew.script("echo.sh", testing::kEchoScript))});
  cli_ok(owner(), {"crews", "register", "api", "--dir", crew.dir().string()});
  model_->queue_tool_call({"__functions_call", [](const ModelRequest&) {
                             return json{{"target", "api"},
                                         {"function", "echo"},
                                         {"arguments", {{"text", "as a task"}}}}
                                 .dump();
                           }});
  model_->set_default_reply("Noted.");

  const auto dir = home_.path("tmux");
  fs::create_directories(dir);
  tui_ = std::make_unique<TmuxSession>(dir, env_, project_, std::vector<std::string>{claude_binary().string()});
  ASSERT_TRUE(tui_->wait_screen("\xE2\x9D\xAF", 60s)) << tui_->screen();  // the ❯ prompt
  tui_->type("Run the echo of the api Crew");
  ASSERT_TRUE(tui_->wait_screen("Run the echo of the api Crew", 10s)) << tui_->screen();
  tui_->press("Enter");

  const auto started = model_->wait_for_tool_result("__functions_call", 0, 60s);
  ASSERT_TRUE(started) << model_->describe();
  static const std::regex call_id(R"(call_[0-9a-f]{24})");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(started->output, m, call_id)) << started->output;
  const std::string id = m.str();
  EXPECT_NE(started->output.find("started server-side task " + id), std::string::npos)
      << "Claude took the answer as a task: " << started->output;
  // Claude Code offers the model every flat tool of the full connection: it drops a tool whose input schema it or
  // the model API cannot take (e.g. a top-level oneOf or allOf). MCP tools may be deferred: then the request lists
  // their names, one per line, for ToolSearch, instead of their schemas in `tools`. The first requests may come
  // while the server still connects: the one that offers functions_call must offer every tool.
  const auto offers = [](const ModelRequest& r, const std::string& tool) {
    const std::string name = "mcp__agentworks-full__" + tool;
    if (r.body.find("\\n" + name + "\\n") != std::string::npos) return true;  // deferred: listed by name
    for (const json& t : json::parse(r.body).value("tools", json::array()))
      if (t.value("name", "") == name) return true;
    return false;
  };
  const auto offered = model_->wait_for(
      [&](const ModelRequest& r) { return r.main_turn && offers(r, "functions_call"); }, 1s);
  ASSERT_TRUE(offered) << model_->describe();
  for (const char* tool : {"functions_list", "functions_status", "functions_read", "functions_reply",
                           "functions_cancel", "messages_send", "messages_ask_crew", "messages_read",
                           "messages_receipt", "agents_state", "agents_register", "agents_list", "wakeups_schedule",
                           "wakeups_cancel", "wakeups_list", "help"})
    EXPECT_TRUE(offers(*offered, tool)) << tool << " was not offered to the model";

  const auto notified = model_->wait_for(
      [&](const ModelRequest& r) { return r.main_turn && r.last_user.find("<task-notification>") != std::string::npos; },
      90s);
  ASSERT_TRUE(notified) << model_->describe();
  EXPECT_NE(notified->last_user.find("<status>completed</status>"), std::string::npos) << notified->last_user;
  EXPECT_NE(notified->last_user.find("<result>\ncall " + id + ": echo on api, status completed"), std::string::npos) << "the call's text: " << notified->last_user;
  EXPECT_NE(notified->last_user.find("got: {\"text\":\"as a task\"}"), std::string::npos) << notified->last_user;
  EXPECT_NE(notified->last_user.find("MCP task " + id), std::string::npos) << notified->last_user;
  EXPECT_EQ(cli_ok(owner(), {"functions", "call-status", "--call", id}).at("status"), "completed");
}

}  // namespace
}  // namespace agentworks::e2e
