// The facts about the real CLIs the end-to-end tests rely on (docs/e2e.md), checked with a stand-in hook
// script instead of agentworks-hook: both CLIs reach the mock model offline; a prompt hook's block keeps the
// prompt from the model; a Stop hook's block reason is the model's next input; Codex skips untrusted hooks and
// runs them once trusted through the app-server (what `/hooks` writes). If a CLI upgrade changes any of this,
// these fail first and say which fact broke.
#include <gtest/gtest.h>

#include <fstream>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_trust.hpp"
#include "driver/e2e_fixture.hpp"

namespace agentworks::e2e {
namespace {

class CliContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = std::make_unique<MockModel>();
    project_ = home_.path("project");
    std::filesystem::create_directories(project_);
    // Named agentworks-hook so the trust writer treats it like ours.
    hook_ = home_.path("fake") / "agentworks-hook";
    std::filesystem::create_directories(hook_.parent_path());
    std::ofstream(hook_) << "#!/bin/sh\n"
                            "in=$(cat)\n"
                            "printf '%s %s\\n' \"$2\" \"$in\" >> \"$(dirname \"$0\")/calls.log\"\n"
                            "case \"$2\" in\n"
                            "  UserPromptSubmit) case \"$in\" in *'\"prompt\":\"agentworks '*) "
                            "echo '{\"decision\":\"block\",\"reason\":\"fake attach\"}';; esac;;\n"
                            "  Stop) case \"$in\" in *'\"stop_hook_active\":true'*) ;; *) "
                            "echo '{\"decision\":\"block\",\"reason\":\"FAKE-DELIVERY 42\"}';; esac;;\n"
                            "esac\n"
                            "exit 0\n";
    std::filesystem::permissions(hook_, std::filesystem::perms::owner_all);
  }
  std::string hooks_json(const std::string& provider) const {
    const std::string cmd = hook_.string() + " " + provider;
    return R"({"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":")" + cmd +
           R"( UserPromptSubmit"}]}],"Stop":[{"hooks":[{"type":"command","command":")" + cmd + R"( Stop"}]}]}})";
  }
  std::string calls() const { return testing::read_file(hook_.parent_path() / "calls.log"); }

  testing::TempHome home_;
  std::unique_ptr<MockModel> model_;
  std::filesystem::path project_;
  std::filesystem::path hook_;
};

TEST_F(CliContractTest, ClaudePrintModeRunsProjectHooksAgainstTheMock) {
  AW_E2E_NEED_CLI(claude_binary(), "claude");
  std::filesystem::create_directories(project_ / ".claude");
  std::ofstream(project_ / ".claude" / "settings.json") << hooks_json("claude");
  const auto env = claude_env(home_, *model_);

  const auto blocked = run_claude(env, project_, {"-p", "agentworks attach x"});
  EXPECT_EQ(blocked.exit_code, 0) << describe_run(blocked);  // exit 0 even when the hook blocks
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach x")) << model_->describe();

  const auto run = run_claude(env, project_, {"-p", "say hello"});
  ASSERT_EQ(run.exit_code, 0) << describe_run(run);
  ASSERT_TRUE(model_->wait_for_user_text("say hello", std::chrono::seconds(5))) << model_->describe();
  // The Stop block reason is the next model input, prefixed by Claude Code.
  const auto next = model_->wait_for_user_text("FAKE-DELIVERY 42", std::chrono::seconds(5));
  ASSERT_TRUE(next) << model_->describe() << calls();
  EXPECT_NE(next->last_user.find("Stop hook feedback"), std::string::npos) << next->last_user;
}

TEST_F(CliContractTest, CodexSkipsUntrustedHooksAndRunsThemOnceTrusted) {
  AW_E2E_NEED_CLI(codex_binary(), "codex");
  std::filesystem::create_directories(project_ / ".codex");
  std::ofstream(project_ / ".codex" / "hooks.json") << hooks_json("codex");
  const auto env = codex_env(home_, *model_);

  const auto untrusted = run_codex(env, project_, {"exec", "--skip-git-repo-check", "first prompt"});
  ASSERT_EQ(untrusted.exit_code, 0) << describe_run(untrusted);
  EXPECT_EQ(calls(), "");  // untrusted hooks are skipped silently
  ASSERT_TRUE(model_->wait_for_user_text("first prompt", std::chrono::seconds(5))) << model_->describe();

  const auto trusted = trust_agentworks_hooks(codex_binary(), env, project_);
  ASSERT_EQ(trusted.size(), 2u);
  for (const auto& h : trusted) EXPECT_EQ(h.trust, "trusted") << h.key;

  const auto blocked = run_codex(env, project_, {"exec", "--skip-git-repo-check", "agentworks attach x"});
  EXPECT_EQ(blocked.exit_code, 0) << describe_run(blocked);
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach x")) << model_->describe();

  const auto run = run_codex(env, project_, {"exec", "--skip-git-repo-check", "second prompt"});
  ASSERT_EQ(run.exit_code, 0) << describe_run(run);
  EXPECT_FALSE(codex_session_id(run).empty()) << describe_run(run);
  const auto next = model_->wait_for_user_text("FAKE-DELIVERY 42", std::chrono::seconds(5));
  ASSERT_TRUE(next) << model_->describe() << calls();
  EXPECT_NE(next->last_user.find("<hook_prompt"), std::string::npos) << next->last_user;
}

}  // namespace
}  // namespace agentworks::e2e
