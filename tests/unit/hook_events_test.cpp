// The hook's event handling (hooks/src/events) against a fake bridge: which request each event sends, what it
// prints for each answer, and that failures print nothing (or, for a typed command, a blocked prompt).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "events.hpp"

namespace agentworks::hook {
namespace {

using nlohmann::json;

struct FakeBridge {
  std::vector<json> requests;
  std::vector<std::chrono::milliseconds> timeouts;
  std::function<json(const json&)> answer = [](const json&) { return json{{"ok", true}}; };

  BridgeCall call() {
    return [this](const json& r, std::chrono::milliseconds t) {
      requests.push_back(r);
      timeouts.push_back(t);
      return answer(r);
    };
  }
};

HookContext context(Provider p, FakeBridge& bridge, HookInput in) {
  HookContext ctx;
  ctx.provider = p;
  ctx.input = std::move(in);
  ctx.process = [] { return std::optional<process::ProcessKey>(process::ProcessKey{4242, "777"}); };
  ctx.call = bridge.call();
  return ctx;
}

HookInput session(std::string id) {
  HookInput in;
  in.session_id = std::move(id);
  in.cwd = "/work/p";
  return in;
}

json out_json(const std::string& out) { return json::parse(out); }

TEST(HookEvents, StopAsksDeliverWithTheLoopGuardFields_RH1_RH2) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"attached", true}, {"text", "two messages"}}; };
  HookInput in = session("s-1");
  in.stop_hook_active = true;
  auto ctx = context(Provider::claude, bridge, in);
  ctx.max_continuations = 5;
  const auto out = handle_event(Event::stop, ctx);
  EXPECT_EQ(out_json(out),
            (json{{"hookSpecificOutput", {{"hookEventName", "Stop"}, {"additionalContext", "two messages"}}}}));
  ASSERT_EQ(bridge.requests.size(), 1u);
  const json& r = bridge.requests[0];
  EXPECT_EQ(r["op"], "deliver");
  EXPECT_EQ(r["provider"], "claude");
  EXPECT_EQ(r["session_id"], "s-1");
  EXPECT_EQ(r["stop_hook_active"], true);
  EXPECT_FALSE(r.contains("loop_count"));
  EXPECT_EQ(r["max_continuations"], 5);
  EXPECT_EQ(r["max_chars"], 9500);
  EXPECT_EQ(r["process"], (json{{"pid", 4242}, {"start", "777"}}));
  EXPECT_GE(bridge.timeouts[0], std::chrono::seconds(20));
}

// R-X5: the Stop payload's final text goes to the bridge (which sends it only for a direct agent); a text too long
// to be a message is said to be so, never cut.
TEST(HookEvents, StopPassesTheFinalTextForDirectMode_RX5) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"attached", true}}; };
  HookInput in = session("s-1");
  in.last_assistant_message = "It is 4.";
  handle_event(Event::stop, context(Provider::codex, bridge, in));
  in.last_assistant_message.clear();
  handle_event(Event::stop, context(Provider::claude, bridge, in));
  in.last_assistant_message = std::string(80'001, 'x');
  handle_event(Event::stop, context(Provider::claude, bridge, in));
  ASSERT_EQ(bridge.requests.size(), 3u);
  EXPECT_EQ(bridge.requests[0]["last_assistant_message"], "It is 4.");
  EXPECT_FALSE(bridge.requests[1].contains("last_assistant_message"));
  EXPECT_FALSE(bridge.requests[2].contains("last_assistant_message"));
  EXPECT_EQ(bridge.requests[2]["last_assistant_message_too_long"], true);
}

TEST(HookEvents, CursorStopSendsLoopCountAndFollowsUp_RH2) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"attached", true}, {"text", "m"}}; };
  HookInput in = session("conv");
  in.loop_count = 2;
  in.status = "completed";
  const auto out = handle_event(Event::stop, context(Provider::cursor, bridge, in));
  EXPECT_EQ(out_json(out), (json{{"followup_message", "m"}}));
  EXPECT_EQ(bridge.requests.at(0)["loop_count"], 2);
  EXPECT_FALSE(bridge.requests.at(0).contains("stop_hook_active"));
}

TEST(HookEvents, CursorStopAfterAbortDeliversNothing) {
  FakeBridge bridge;
  HookInput in = session("conv");
  in.status = "aborted";
  EXPECT_EQ(handle_event(Event::stop, context(Provider::cursor, bridge, in)), "");
  EXPECT_TRUE(bridge.requests.empty());
}

TEST(HookEvents, StopPrintsNothingWhenNotAttachedEmptyOrFailing_RH9) {
  FakeBridge bridge;
  for (const json& a : {json{{"ok", true}, {"attached", false}},
                        json{{"ok", true}, {"attached", true}, {"text", ""}, {"guarded", true}},
                        json{{"ok", true}, {"attached", true}}, json{{"ok", true}, {"attached", true}, {"text", 5}}}) {
    bridge.answer = [a](const json&) { return a; };
    EXPECT_EQ(handle_event(Event::stop, context(Provider::codex, bridge, session("s"))), "") << a.dump();
  }
  for (const ErrorCode code : {ErrorCode::unreachable, ErrorCode::fenced, ErrorCode::internal}) {
    bridge.answer = [code](const json&) -> json { throw Error(code, "nope"); };
    EXPECT_EQ(handle_event(Event::stop, context(Provider::claude, bridge, session("s"))), "");
  }
  bridge.answer = [](const json&) -> json { throw std::runtime_error("odd"); };
  EXPECT_EQ(handle_event(Event::stop, context(Provider::claude, bridge, session("s"))), "");
}

TEST(HookEvents, NoSessionIdNoRequest) {
  FakeBridge bridge;
  for (const auto e : {Event::stop, Event::session_start, Event::session_end}) {
    EXPECT_EQ(handle_event(e, context(Provider::claude, bridge, HookInput{})), "");
  }
  EXPECT_TRUE(bridge.requests.empty());
}

// R-H9: an ordinary prompt never touches the socket, not even for the process key.
// R-H9, R-X3: an ordinary prompt asks the bridge one thing (a turn of this chat started), without a process
// lookup, and prints nothing.
TEST(HookEvents, OrdinaryPromptOnlyTellsTheBridgeATurnStarted_RH9_RX3) {
  FakeBridge bridge;
  HookInput in = session("s");
  in.prompt = "please fix the tests";
  auto ctx = context(Provider::claude, bridge, in);
  bool asked_process = false;
  ctx.process = [&] {
    asked_process = true;
    return std::optional<process::ProcessKey>();
  };
  EXPECT_EQ(handle_event(Event::prompt_submit, ctx), "");
  ASSERT_EQ(bridge.requests.size(), 1u);
  EXPECT_EQ(bridge.requests[0], (json{{"op", "turn_start"}, {"provider", "claude"}, {"session_id", "s"}}));
  EXPECT_FALSE(asked_process);
}

// R-H4, R-H5, R-H13: a typed attach becomes one `command` request; the answer blocks the prompt.
TEST(HookEvents, TypedAttachSendsCommand_RH4_RH5_RH13) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"text", "Attached this chat as reviewer."}}; };
  HookInput in = session("s-9");
  in.prompt = "/agentworks attach reviewer \"Review work\"";
  auto ctx = context(Provider::claude, bridge, in);
  ctx.config = "/home/u/alt.json";
  const json out = out_json(handle_event(Event::prompt_submit, ctx));
  EXPECT_EQ(out["decision"], "block");
  EXPECT_EQ(out["reason"], "agentworks: Attached this chat as reviewer.");
  EXPECT_EQ(out["hookSpecificOutput"]["suppressOriginalPrompt"], true);
  ASSERT_EQ(bridge.requests.size(), 1u);
  const json& r = bridge.requests[0];
  EXPECT_EQ(r["op"], "command");
  EXPECT_EQ(r["verb"], "attach");
  EXPECT_EQ(r["name"], "reviewer");
  EXPECT_EQ(r["purpose"], "Review work");
  EXPECT_FALSE(r.contains("confirm"));
  EXPECT_EQ(r["cwd"], "/work/p");
  EXPECT_EQ(r["config"], "/home/u/alt.json");
  EXPECT_EQ(r["session_id"], "s-9");
  EXPECT_EQ(r["process"]["pid"], 4242);
}

// The provider's home (CLAUDE_CONFIG_DIR / CODEX_HOME) and the person's native switches reach the
// bridge with the typed attach; without a home variable nothing is sent (the bridge uses the default).
TEST(HookEvents, AttachCarriesProviderHomeAndNativeSwitches) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"text", "ok"}}; };
  HookInput in = session("0199aa11-2233-7444-8555-666677778888");
  in.prompt = "agentworks attach builder --no-native --native-remote unix:///run/codex.sock";
  auto ctx = context(Provider::codex, bridge, in);
  ctx.provider_home = "/home/u/.codex-work";
  handle_event(Event::prompt_submit, ctx);
  ASSERT_EQ(bridge.requests.size(), 1u);
  EXPECT_EQ(bridge.requests[0]["provider_home"], "/home/u/.codex-work");
  EXPECT_EQ(bridge.requests[0]["native"], false);
  EXPECT_EQ(bridge.requests[0]["native_remote"], "unix:///run/codex.sock");
  in.prompt = "";
  handle_event(Event::stop, context(Provider::claude, bridge, in));
  ASSERT_EQ(bridge.requests.size(), 2u);
  EXPECT_FALSE(bridge.requests[1].contains("provider_home"));
  EXPECT_FALSE(bridge.requests[1].contains("native"));
}

TEST(HookEvents, ConfirmAndOtherVerbs) {
  FakeBridge bridge;
  bridge.answer = [](const json&) { return json{{"ok", true}, {"text", "agentworks: ok"}}; };
  HookInput in = session("conv");
  in.prompt = "/agentworks attach --confirm";
  const json out = out_json(handle_event(Event::prompt_submit, context(Provider::cursor, bridge, in)));
  EXPECT_EQ(out, (json{{"continue", false}, {"user_message", "agentworks: ok"}}));
  EXPECT_EQ(bridge.requests.at(0)["confirm"], true);
  EXPECT_FALSE(bridge.requests.at(0).contains("name"));
  EXPECT_FALSE(bridge.requests.at(0).contains("config"));
  in.prompt = "agentworks detach";
  handle_event(Event::prompt_submit, context(Provider::codex, bridge, in));
  EXPECT_EQ(bridge.requests.at(1)["verb"], "detach");
  EXPECT_EQ(bridge.requests.at(1)["provider"], "codex");
}

TEST(HookEvents, UsageBlocksWithoutAskingTheBridge) {
  FakeBridge bridge;
  HookInput in = session("s");
  in.prompt = "/agentworks";
  const json out = out_json(handle_event(Event::prompt_submit, context(Provider::codex, bridge, in)));
  EXPECT_EQ(out["decision"], "block");
  EXPECT_NE(out["reason"].get<std::string>().find("agentworks attach NAME"), std::string::npos);
  EXPECT_TRUE(bridge.requests.empty());
}

// A typed command is blocked from the model whatever goes wrong; the person reads why.
TEST(HookEvents, CommandErrorsStillBlock_RH4) {
  FakeBridge bridge;
  HookInput in = session("s");
  in.prompt = "/agentworks status";
  bridge.answer = [](const json&) -> json { throw Error(ErrorCode::unreachable, bridge_client::not_running_message()); };
  json out = out_json(handle_event(Event::prompt_submit, context(Provider::claude, bridge, in)));
  EXPECT_EQ(out["decision"], "block");
  EXPECT_NE(out["reason"].get<std::string>().find("agentworks up"), std::string::npos);
  bridge.answer = [](const json&) -> json { throw Error(ErrorCode::not_found, "no proposal to confirm"); };
  out = out_json(handle_event(Event::prompt_submit, context(Provider::cursor, bridge, in)));
  EXPECT_EQ(out["continue"], false);
  EXPECT_EQ(out["user_message"], "agentworks: no proposal to confirm");
  bridge.answer = [](const json&) -> json { throw std::runtime_error("bad answer"); };
  out = out_json(handle_event(Event::prompt_submit, context(Provider::codex, bridge, in)));
  EXPECT_EQ(out["decision"], "block");
  in.session_id.clear();
  out = out_json(handle_event(Event::prompt_submit, context(Provider::claude, bridge, in)));
  EXPECT_EQ(out["decision"], "block");
}

// R-H11: SessionStart tells the person how to resume an offline attachment; SessionEnd marks it offline.
TEST(HookEvents, SessionStartHintAndSessionEndOffline_RH11) {
  FakeBridge bridge;
  bridge.answer = [](const json&) {
    return json{{"ok", true}, {"attached", false}, {"state", "offline"}, {"agent_name", "reviewer"}};
  };
  HookInput in = session("s");
  in.source = "resume";
  json out = out_json(handle_event(Event::session_start, context(Provider::claude, bridge, in)));
  EXPECT_EQ(out["systemMessage"],
            "agentworks: this chat was attached as reviewer; type /agentworks resume to reconnect it.");
  out = out_json(handle_event(Event::session_start, context(Provider::codex, bridge, in)));
  EXPECT_EQ(out["systemMessage"],
            "agentworks: this chat was attached as reviewer; type agentworks resume to reconnect it.");
  EXPECT_EQ(bridge.requests.at(0)["op"], "lookup");
  bridge.answer = [](const json&) { return json{{"ok", true}, {"attached", true}, {"state", "attached"}}; };
  EXPECT_EQ(handle_event(Event::session_start, context(Provider::claude, bridge, in)), "");
  bridge.answer = [](const json&) { return json{{"ok", true}, {"attached", false}}; };
  EXPECT_EQ(handle_event(Event::session_start, context(Provider::claude, bridge, in)), "");

  bridge.requests.clear();
  bridge.timeouts.clear();
  EXPECT_EQ(handle_event(Event::session_end, context(Provider::claude, bridge, in)), "");
  ASSERT_EQ(bridge.requests.size(), 1u);
  EXPECT_EQ(bridge.requests[0]["op"], "offline");
  EXPECT_LE(bridge.timeouts[0], std::chrono::milliseconds(1500));
  bridge.answer = [](const json&) -> json { throw Error(ErrorCode::not_found, "x"); };
  EXPECT_EQ(handle_event(Event::session_end, context(Provider::claude, bridge, in)), "");
}

}  // namespace
}  // namespace agentworks::hook
