// The hook's output per provider (hooks/src/hook_output), its input parsing (hooks/src/hook_input) and its
// environment settings (hooks/src/hook_env). Output shapes follow the schemas of Claude Code 2.1.197 and
// Codex 0.171.0 (Codex rejects unknown fields, so nothing Claude-only may leak into its output).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hook_env.hpp"
#include "hook_input.hpp"
#include "hook_output.hpp"
#include "provider.hpp"

namespace agentworks::hook {
namespace {

using nlohmann::json;

json parsed_line(const std::string& out) {
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line";
  return json::parse(out);
}

TEST(HookOutput, StopContinuation_RH1) {
  EXPECT_EQ(parsed_line(continue_with(Provider::claude, "hi\nthere")),
            (json{{"hookSpecificOutput", {{"hookEventName", "Stop"}, {"additionalContext", "hi\nthere"}}}}));
  EXPECT_EQ(parsed_line(continue_with(Provider::codex, "hi")), (json{{"decision", "block"}, {"reason", "hi"}}));
  EXPECT_EQ(parsed_line(continue_with(Provider::cursor, "hi")), (json{{"followup_message", "hi"}}));
  // The Pi extension continues the session with `reason` (plugins/pi/agentworks.ts).
  EXPECT_EQ(parsed_line(continue_with(Provider::pi, "hi")), (json{{"decision", "block"}, {"reason", "hi"}}));
}

TEST(HookOutput, PromptBlock_RH4) {
  EXPECT_EQ(parsed_line(block_prompt(Provider::claude, "done")),
            (json{{"decision", "block"},
                  {"reason", "done"},
                  {"hookSpecificOutput", {{"hookEventName", "UserPromptSubmit"}, {"suppressOriginalPrompt", true}}}}));
  EXPECT_EQ(parsed_line(block_prompt(Provider::codex, "done")), (json{{"decision", "block"}, {"reason", "done"}}));
  EXPECT_EQ(parsed_line(block_prompt(Provider::cursor, "done")),
            (json{{"continue", false}, {"user_message", "done"}}));
  EXPECT_EQ(parsed_line(block_prompt(Provider::pi, "done")), (json{{"decision", "block"}, {"reason", "done"}}));
}

TEST(HookOutput, TellPerson_RH11) {
  EXPECT_EQ(parsed_line(tell_person(Provider::claude, "x")), (json{{"systemMessage", "x"}}));
  EXPECT_EQ(parsed_line(tell_person(Provider::codex, "x")), (json{{"systemMessage", "x"}}));
}

TEST(HookOutput, InvalidUtf8IsReplacedNotThrown) {
  const auto out = continue_with(Provider::claude, std::string("a\xff") + "b");
  EXPECT_NO_THROW(json::parse(out));
}

TEST(HookProvider, EventTable) {
  EXPECT_EQ(parse_provider("claude"), Provider::claude);
  EXPECT_EQ(parse_provider("Claude"), std::nullopt);
  EXPECT_EQ(parse_provider(""), std::nullopt);
  EXPECT_EQ(parse_event(Provider::claude, "Stop"), Event::stop);
  EXPECT_EQ(parse_event(Provider::claude, "UserPromptSubmit"), Event::prompt_submit);
  EXPECT_EQ(parse_event(Provider::codex, "SessionStart"), Event::session_start);
  EXPECT_EQ(parse_event(Provider::codex, "SessionEnd"), Event::session_end);
  EXPECT_EQ(parse_event(Provider::cursor, "stop"), Event::stop);
  EXPECT_EQ(parse_event(Provider::cursor, "beforeSubmitPrompt"), Event::prompt_submit);
  EXPECT_EQ(parse_event(Provider::cursor, "SessionStart"), std::nullopt);
  EXPECT_EQ(parse_provider("pi"), Provider::pi);
  for (const auto* name : {"Stop", "UserPromptSubmit", "SessionStart", "SessionEnd"}) {
    EXPECT_TRUE(parse_event(Provider::pi, name).has_value()) << name;
  }
  EXPECT_EQ(parse_event(Provider::pi, "stop"), Event::stop);  // names are matched ignoring case
  EXPECT_EQ(parse_event(Provider::pi, "agent_end"), std::nullopt);
  EXPECT_EQ(parse_event(Provider::claude, "PreToolUse"), std::nullopt);
  EXPECT_EQ(parse_event(Provider::claude, "beforeSubmitPrompt"), std::nullopt);
}

TEST(HookInputParse, ClaudeAndCodexFields) {
  const auto in = parse_hook_input(
      R"({"session_id":"abc-1","cwd":"/p","hook_event_name":"Stop","stop_hook_active":true,"source":"resume",
          "prompt":"hi","last_assistant_message":"done"})",
      Provider::claude);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->session_id, "abc-1");
  EXPECT_EQ(in->cwd, "/p");
  EXPECT_TRUE(in->stop_hook_active);
  EXPECT_EQ(in->source, "resume");
  EXPECT_EQ(in->prompt, "hi");
  EXPECT_FALSE(in->loop_count);
}

TEST(HookInputParse, CursorFields) {
  const auto in = parse_hook_input(
      R"({"conversation_id":"conv-9","generation_id":"g","session_id":"ignored","workspace_roots":["/w","/v"],
          "status":"completed","loop_count":2,"hook_event_name":"stop"})",
      Provider::cursor);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->session_id, "conv-9");
  EXPECT_EQ(in->cwd, "/w");
  EXPECT_EQ(in->loop_count, 2);
  EXPECT_EQ(in->status, "completed");
}

TEST(HookInputParse, MalformedOrOddInputs) {
  EXPECT_FALSE(parse_hook_input("", Provider::claude));
  EXPECT_FALSE(parse_hook_input("not json", Provider::claude));
  EXPECT_FALSE(parse_hook_input("[1,2]", Provider::claude));
  EXPECT_FALSE(parse_hook_input("\"str\"", Provider::claude));
  EXPECT_FALSE(parse_hook_input("{\"session_id\":\"a\"", Provider::claude));
  EXPECT_FALSE(parse_hook_input("{\"prompt\":\"\xff\"}", Provider::claude));  // invalid UTF-8
  // Wrong types are absent; an invalid session id is empty.
  const auto in = parse_hook_input(R"({"session_id":7,"stop_hook_active":"yes","prompt":["x"]})", Provider::codex);
  ASSERT_TRUE(in);
  EXPECT_TRUE(in->session_id.empty());
  EXPECT_FALSE(in->stop_hook_active);
  EXPECT_FALSE(in->prompt);
  EXPECT_TRUE(parse_hook_input(R"({"session_id":"has space"})", Provider::claude)->session_id.empty());
  EXPECT_TRUE(parse_hook_input(R"({"session_id":""})", Provider::claude)->session_id.empty());
  EXPECT_TRUE(parse_hook_input("{\"session_id\":\"" + std::string(201, 'a') + "\"}", Provider::claude)
                  ->session_id.empty());
  EXPECT_EQ(parse_hook_input("{\"session_id\":\"" + std::string(200, 'a') + "\"}", Provider::claude)->session_id,
            std::string(200, 'a'));
}

TEST(HookInputRead, BoundedBySize) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string data(1000, 'x');
  ASSERT_EQ(::write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  EXPECT_FALSE(read_all_bounded(fds[0], 999));
  ::close(fds[0]);
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  EXPECT_EQ(read_all_bounded(fds[0], 1000), data);
  ::close(fds[0]);
}

TEST(HookInputRead, BoundedByTime) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);  // the write end stays open: EOF never comes
  EXPECT_FALSE(read_all_bounded(fds[0], 1000, std::chrono::milliseconds(50)));
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(HookEnv, MaxContinuations_RH2) {
  EXPECT_EQ(max_continuations_from(nullptr), 3);
  EXPECT_EQ(max_continuations_from(""), 3);
  EXPECT_EQ(max_continuations_from("0"), 0);
  EXPECT_EQ(max_continuations_from("8"), 8);
  EXPECT_EQ(max_continuations_from("9"), 3);
  EXPECT_EQ(max_continuations_from("-1"), 3);
  EXPECT_EQ(max_continuations_from("2x"), 3);
  EXPECT_EQ(max_continuations_from(" 2"), 3);
}

TEST(HookEnv, ConfigIsMadeAbsolute_RH13) {
  EXPECT_FALSE(config_from(nullptr));
  EXPECT_FALSE(config_from(""));
  EXPECT_EQ(config_from("/a/b/../c.json"), "/a/c.json");
  const auto rel = config_from("x/c.json");
  ASSERT_TRUE(rel);
  EXPECT_EQ(rel->front(), '/');
  EXPECT_NE(rel->find("x/c.json"), std::string::npos);
}

TEST(HookEnv, ProviderHomeIsTheProvidersOwnVariableAndAbsolute) {
  EXPECT_STREQ(provider_home_variable("claude"), "CLAUDE_CONFIG_DIR");
  EXPECT_STREQ(provider_home_variable("codex"), "CODEX_HOME");
  EXPECT_EQ(provider_home_variable("cursor"), nullptr);
  EXPECT_FALSE(provider_home_from(nullptr));
  EXPECT_FALSE(provider_home_from(""));
  EXPECT_FALSE(provider_home_from("relative/.codex"));  // the bridge would resolve it elsewhere: never guessed
  EXPECT_EQ(provider_home_from("/home/u/./.codex/"), "/home/u/.codex/");
}

}  // namespace
}  // namespace agentworks::hook
