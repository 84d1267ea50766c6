// The mock model's scripted failures and per-conversation answers, checked against the real CLIs run directly
// (no agentworks involved): what the agent-runner tests rely on. An API error is Claude Code's `result` with
// is_error true and exit 1, and Codex's `error` + `turn.failed`; a hanging turn answers once released; parallel
// runs scripted by marker each get their own answers and stay separate conversations at the mock.
#include <gtest/gtest.h>

#include <future>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "mock_model/mock_model.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace agentworks::e2e {
namespace {

using namespace std::chrono_literals;

class MockScriptingE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = home_.path("project");
    std::filesystem::create_directories(project_);
  }
  testing::ProcessResult claude_print(const std::string& prompt) {
    return run_claude(claude_env(home_, model_), project_,
                      {"-p", "--verbose", "--output-format", "stream-json", prompt}, 90s);
  }
  testing::ProcessResult codex_exec(const std::string& prompt) {
    return run_codex(codex_env(home_, model_), project_, {"exec", "--json", "--skip-git-repo-check", prompt}, 90s);
  }
  bool wait_hanging(std::size_t n) {
    return testing::wait_until(
        [&] {
          std::size_t hanging = 0;
          for (const auto& r : model_.main_turns()) hanging += r.reply == "hang" ? 1u : 0u;
          return hanging >= n;
        },
        60s, 20ms);
  }

  testing::TempHome home_;
  MockModel model_;
  std::filesystem::path project_;
};

TEST_F(MockScriptingE2eTest, ClaudeApiErrorIsErrorResultAndExitOne) {
  AW_E2E_NEED_CLI(claude_binary(), "claude");
  model_.script_conversation("MARK-ERR", {MockAnswer::api_error(400, "invalid_request_error", "mock API error: bad")});
  const auto run = claude_print("hello MARK-ERR");
  EXPECT_EQ(run.exit_code, 1) << describe_run(run);
  EXPECT_NE(run.out.find("\"is_error\":true"), std::string::npos) << describe_run(run);
  EXPECT_NE(run.out.find("mock API error: bad"), std::string::npos) << describe_run(run);
  EXPECT_GE(model_.main_turns_with("MARK-ERR").size(), 1u) << model_.describe();  // (Claude retries a 400 once)
}

TEST_F(MockScriptingE2eTest, CodexApiErrorIsErrorThenTurnFailed) {
  AW_E2E_NEED_CLI(codex_binary(), "codex");
  model_.script_conversation("MARK-ERR", {MockAnswer::api_error(400, "invalid_request_error", "mock API error: bad")});
  const auto run = codex_exec("hello MARK-ERR");
  EXPECT_NE(run.out.find("\"type\":\"turn.failed\""), std::string::npos) << describe_run(run);
  EXPECT_NE(run.out.find("mock API error: bad"), std::string::npos) << describe_run(run);
  EXPECT_EQ(run.out.find("\"type\":\"turn.completed\""), std::string::npos) << describe_run(run);
}

TEST_F(MockScriptingE2eTest, HangingTurnAnswersOnceReleased) {
  AW_E2E_NEED_CLI(claude_binary(), "claude");
  model_.script_conversation("MARK-HANG", {MockAnswer::hang("LATE-ANSWER")});
  auto run = std::async(std::launch::async, [&] { return claude_print("hello MARK-HANG"); });
  ASSERT_TRUE(wait_hanging(1)) << model_.describe();
  EXPECT_EQ(run.wait_for(500ms), std::future_status::timeout) << "the CLI finished while the mock hung";
  model_.release_hangs();
  const auto done = run.get();
  EXPECT_EQ(done.exit_code, 0) << describe_run(done);
  EXPECT_NE(done.out.find("LATE-ANSWER"), std::string::npos) << describe_run(done);
}

TEST_F(MockScriptingE2eTest, ParallelRunsScriptedByMarkerStayApart) {
  AW_E2E_NEED_CLI(claude_binary(), "claude");
  AW_E2E_NEED_CLI(codex_binary(), "codex");
  model_.script_conversation("MARK-A", {MockAnswer::reply("ANSWER-A")});
  model_.script_conversation("MARK-B", {MockAnswer::reply("ANSWER-B")});
  model_.script_conversation("MARK-C", {MockAnswer::reply("ANSWER-C")});
  auto a = std::async(std::launch::async, [&] { return claude_print("task MARK-A"); });
  auto b = std::async(std::launch::async, [&] { return claude_print("task MARK-B"); });
  auto c = std::async(std::launch::async, [&] { return codex_exec("task MARK-C"); });
  const auto ra = a.get(), rb = b.get(), rc = c.get();
  EXPECT_NE(ra.out.find("ANSWER-A"), std::string::npos) << describe_run(ra);
  EXPECT_EQ(ra.out.find("ANSWER-B"), std::string::npos) << describe_run(ra);
  EXPECT_NE(rb.out.find("ANSWER-B"), std::string::npos) << describe_run(rb);
  EXPECT_NE(rc.out.find("ANSWER-C"), std::string::npos) << describe_run(rc);
  EXPECT_EQ(model_.conversations_apart({"MARK-A", "MARK-B", "MARK-C"}), "") << model_.describe();
  EXPECT_NE(model_.conversations_apart({"MARK-A", "MARK-B", "MARK-D"}), "");  // a marker without turns is reported
}

}  // namespace
}  // namespace agentworks::e2e
