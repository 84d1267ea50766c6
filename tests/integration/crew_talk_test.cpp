// Talking to a Crew (R-K1, R-K3) without an agent CLI: the Crew file (.agentworks/crew.json) is checked with line
// and reason like functions.json; a `crew:NAME` target gets a plain receipt (never a call id) and the Crew's agent
// stays out of every list of names; a Crew without an agent is not a target; the messaging switch refuses every
// incoming message, replies included, and changes nothing else. The server's agent CLI is absent here, so a turn
// cannot start: the message still reads as stored, then unanswered (R-X3), and its sender is told once. The real
// Claude Code and Codex answer in tests/e2e/crew_conversation_e2e_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class CrewTalk : public CrewTest {
 protected:
  void SetUp() override {
    start_server({}, {{"AGENTWORKS_CLAUDE_BIN", home_.path("no-claude").string()},
                      {"AGENTWORKS_CODEX_BIN", home_.path("no-codex").string()}});
  }
  // Crew `name` with one command function (callable by `allowed_callers`, when given) and, unless `crew_file` is
  // empty, that .agentworks/crew.json text.
  HttpResponse make_talking_crew(const std::string& name, const std::string& crew_file,
                                 const json& allowed_callers = nullptr) {
    const fs::path dir = make_crew_dir(name);
    json hello = function_decl("hello");
    if (!allowed_callers.is_null()) hello["allowed_callers"] = allowed_callers;
    write_functions(dir, json::array({hello}));
    write_script(dir, "tools/hello.sh", "echo hello");
    if (!crew_file.empty()) write_text(dir / ".agentworks" / "crew.json", crew_file);
    return register_crew(owner_http(), name, dir);
  }
  static std::string claude_agent(bool messaging = true) {
    return std::string("{\n  \"agent\": {\"claude\": {\"instructions\": \"You answer questions about the api.\"}},\n"
                       "  \"messaging\": ") +
           (messaging ? "true" : "false") + "\n}\n";
  }
  HttpResponse send(const json& body) { return owner_http().post("/v1/messages", body.dump()); }
  json show(const std::string& crew) { return http_json(owner_http(), "GET", "/v1/crews/" + crew, std::nullopt, 200); }
  HttpResponse set_messaging(const std::string& crew, const json& value) {
    return owner_http().post("/v1/crews/" + crew + "/messaging", json{{"messaging", value}}.dump());
  }
  static std::string code_of(const HttpResponse& r) {
    return parse_json(r.body).value("error", json::object()).value("code", "");
  }
  static std::string message_of(const HttpResponse& r) {
    return parse_json(r.body).value("error", json::object()).value("message", "");
  }
  json inbox_info(const std::string& inbox_id) {
    return http_json(owner_http(), "GET", "/v1/inboxes/" + inbox_id, std::nullopt, 200);
  }
  // The messages of an inbox as the owner's agent `as` reads them.
  json inbox(const std::string& inbox_id, const std::string& as) {
    return http_json(owner_http(), "GET", "/v1/messages?inbox_id=" + inbox_id + "&agent_name=" + as, std::nullopt, 200);
  }
};

TEST_F(CrewTalk, TheCrewFileIsCheckedWithLineAndReason_RK2) {
  const HttpResponse unknown = make_talking_crew("api", "{\n  \"agent\": {\"claude\": {\"instructions\": \"x\"}},\n"
                                                        "  \"voice\": true\n}\n");
  EXPECT_EQ(unknown.status, 400) << describe(unknown);
  EXPECT_EQ(code_of(unknown), "invalid_declaration");
  EXPECT_NE(message_of(unknown).find("crew.json:3: unknown key 'voice'"), std::string::npos) << message_of(unknown);

  const HttpResponse no_instructions = make_talking_crew("web", "{\"agent\": {\"codex\": {}}}");
  EXPECT_EQ(code_of(no_instructions), "invalid_declaration") << describe(no_instructions);
  EXPECT_NE(message_of(no_instructions).find("\"instructions\""), std::string::npos) << message_of(no_instructions);

  // The Crew's allowance bounds its agent like an agent function: Bash is not in the default allowance.
  const HttpResponse wide = make_talking_crew(
      "ops", "{\"agent\": {\"claude\": {\"instructions\": \"x\", \"allowed_tools\": [\"Bash\"]}}}");
  EXPECT_EQ(code_of(wide), "invalid_declaration") << describe(wide);
  EXPECT_NE(message_of(wide).find("agentworks crews allow ops"), std::string::npos) << message_of(wide);

  const HttpResponse both = make_talking_crew("db", "{\"agent\": {\"claude\": {\"instructions\": \"a\"}, "
                                                    "\"codex\": {\"instructions\": \"b\"}}}");
  EXPECT_EQ(code_of(both), "invalid_declaration") << describe(both);

  ASSERT_EQ(make_talking_crew("good", claude_agent()).status, 201);
  const json crew = show("good");
  EXPECT_EQ(crew.at("agent").at("runner"), "claude") << crew.dump();
  EXPECT_EQ(crew.at("agent").at("instructions"), "You answer questions about the api.");
  EXPECT_EQ(crew.at("messaging"), true);
  EXPECT_EQ(crew.at("messaging_source"), "file");
  EXPECT_TRUE(crew.at("conversations").empty());
}

TEST_F(CrewTalk, ACrewWithoutAnAgentIsNoTarget_RK1) {
  ASSERT_EQ(make_talking_crew("plain", "").status, 201);
  const HttpResponse plain = send({{"target", "crew:plain"}, {"message", "hello?"}});
  EXPECT_EQ(plain.status, 404) << describe(plain);
  EXPECT_NE(message_of(plain).find("crew.json"), std::string::npos) << message_of(plain);
  const HttpResponse nobody = send({{"target", "crew:nowhere"}, {"message", "hello?"}});
  EXPECT_EQ(nobody.status, 404) << describe(nobody);
  EXPECT_EQ(show("plain").at("agent"), nullptr);
}

TEST_F(CrewTalk, ACrewMessageGetsAPlainReceiptAndItsAgentStaysHidden_RK1) {
  ASSERT_EQ(make_talking_crew("api", claude_agent()).status, 201);
  register_agent(owner(), "worker");
  const HttpResponse sent = send({{"target", "crew:api"}, {"message", "What changed in v2?"}, {"agent_name", "worker"}});
  ASSERT_EQ(sent.status, 201) << describe(sent);
  const json receipt = parse_json(sent.body);
  EXPECT_TRUE(receipt.contains("inbox_id") && receipt.contains("conversation_id") && receipt.contains("message_id"));
  EXPECT_FALSE(receipt.contains("call_id")) << receipt.dump();

  // The Crew's agent is nobody's name: not listed, not a registration, not an agent: target.
  const json agents = http_json(owner_http(), "GET", "/v1/agents", std::nullopt, 200);
  for (const json& a : agents.at("agents")) EXPECT_EQ(a.at("agent_name").get<std::string>().rfind("crew:", 0), std::string::npos);
  EXPECT_EQ(send({{"target", "agent:crew:api"}, {"message", "x"}}).status, 400);

  // A second message goes into the same conversation.
  const HttpResponse again = send({{"target", "crew:api"}, {"message", "And in v3?"}, {"agent_name", "worker"}});
  ASSERT_EQ(again.status, 201) << describe(again);
  EXPECT_EQ(parse_json(again.body).at("inbox_id"), receipt.at("inbox_id"));

  // No agent CLI here: its turn cannot run, so each message reads unanswered and the sender is told once each.
  const std::string inbox_id = receipt.at("inbox_id");
  json page;
  ASSERT_TRUE(wait_until(
      [&] {
        page = inbox(inbox_id, "worker");
        int status_lines = 0;
        for (const json& m : page.at("messages")) status_lines += m.value("kind", "") == "status" ? 1 : 0;
        return status_lines == 2;
      },
      std::chrono::seconds(30)))
      << page.dump(2);
  const json r = http_json(owner_http(), "GET", "/v1/messages/" + receipt.at("message_id").get<std::string>() +
                                                    "/receipt", std::nullopt, 200);
  EXPECT_EQ(r.at("delivery").at("reply_state"), "unanswered") << r.dump();
  const json crew = show("api");
  ASSERT_EQ(crew.at("conversations").size(), 1u) << crew.dump(2);
  EXPECT_EQ(crew.at("conversations")[0].at("inbox_id"), inbox_id);
  EXPECT_EQ(crew.at("conversations")[0].at("initiator").at("agent_name"), "worker");
  EXPECT_EQ(crew.at("conversations")[0].at("turn"), "idle");
  EXPECT_EQ(crew.at("conversations")[0].at("waiting"), 0);
  // The owner's state view of the Crew's agent, by the Crew's name.
  const json state = http_json(owner_http(), "GET", "/v1/agents/crew:api/state", std::nullopt, 200);
  EXPECT_EQ(state.at("agent_name"), "crew:api");
  ASSERT_EQ(state.at("inboxes").size(), 1u) << state.dump(2);
  EXPECT_EQ(state.at("inboxes")[0].at("inbox_id"), inbox_id);
  int unanswered = 0;
  for (const json& d : state.at("inboxes")[0].at("deliveries"))
    unanswered += d.at("kind") == "message" && d.at("reply_state") == "unanswered" ? 1 : 0;
  EXPECT_EQ(unanswered, 2) << state.dump(2);
  const json via_cli = cli_ok(owner(), {"messages", "state", "--agent", "crew:api"});
  EXPECT_EQ(via_cli.at("inboxes").size(), 1u) << via_cli.dump(2);

  // R-W5: the person lists (and may cancel) the Crew agent's wakeups, but only its turns schedule them.
  const json wakeups = cli_ok(owner(), {"wakeups", "list", "--agent", "crew:api"});
  EXPECT_EQ(wakeups.at("agent_name"), "crew:api") << wakeups.dump();
  EXPECT_TRUE(wakeups.at("wakeups").empty()) << wakeups.dump();
  const HttpResponse scheduled = owner_http().post("/v1/agents/crew:api/wakeups",
                                                   json{{"after_minutes", 5}, {"note", "from the person"}}.dump());
  EXPECT_EQ(scheduled.status, 403) << describe(scheduled);
  EXPECT_NE(message_of(scheduled).find("its own turns"), std::string::npos) << message_of(scheduled);
  EXPECT_EQ(state.at("wakeups").size(), 0u) << state.dump(2);
}

TEST_F(CrewTalk, MessagingOffRefusesEveryMessageToTheCrewAndNothingElse_RK3) {
  ASSERT_EQ(make_talking_crew("api", claude_agent()).status, 201);
  const HttpResponse first = send({{"target", "crew:api"}, {"message", "Before the switch"}});
  ASSERT_EQ(first.status, 201) << describe(first);
  const std::string inbox_id = parse_json(first.body).at("inbox_id");

  const HttpResponse off = set_messaging("api", false);
  ASSERT_EQ(off.status, 200) << describe(off);
  EXPECT_EQ(parse_json(off.body).at("messaging"), false);
  EXPECT_EQ(parse_json(off.body).at("messaging_source"), "server");
  const json before = inbox_info(inbox_id);

  const HttpResponse fresh = send({{"target", "crew:api"}, {"message", "A new question"}});
  EXPECT_EQ(fresh.status, 403) << describe(fresh);
  EXPECT_EQ(code_of(fresh), "messaging_disabled");
  EXPECT_NE(message_of(fresh).find("crews set api --messaging on"), std::string::npos) << message_of(fresh);
  const HttpResponse reply = send({{"inbox_id", inbox_id}, {"message", "A reply in the conversation"}});
  EXPECT_EQ(code_of(reply), "messaging_disabled") << describe(reply);
  EXPECT_EQ(inbox_info(inbox_id).at("message_count"), before.at("message_count")) << "nothing was stored";

  // Its functions and the rest of the Crew are unchanged.
  EXPECT_EQ(call_ok("api", "hello").value("status", ""), "running");
  EXPECT_EQ(show("api").at("functions").size(), 1u);

  // null: back to crew.json's value (on).
  const HttpResponse back = set_messaging("api", nullptr);
  EXPECT_EQ(parse_json(back.body).at("messaging_source"), "file") << describe(back);
  EXPECT_EQ(send({{"inbox_id", inbox_id}, {"message", "After the switch"}}).status, 201);
  EXPECT_EQ(set_messaging("api", "off").status, 400) << "true, false or null only";

  // A Crew file that says false refuses from the start.
  ASSERT_EQ(make_talking_crew("quiet", claude_agent(false)).status, 201);
  const HttpResponse quiet = send({{"target", "crew:quiet"}, {"message", "hello?"}});
  EXPECT_EQ(code_of(quiet), "messaging_disabled") << describe(quiet);
  EXPECT_NE(message_of(quiet).find("crew.json"), std::string::npos) << message_of(quiet);
}

// R-K1 with R-F4: another account talks to a Crew by its id (crew:crw_...) only when the Crew admits it to a
// function; a third account is told not_found, exactly as for a Crew that does not exist. The conversation is the
// caller's: it reads its inbox, and the owner's state view of the Crew's agent shows the delivery, never a body.
TEST_F(CrewTalk, AnotherAccountTalksToACrewThatAdmitsIt_RK1) {
  Identity partner = add_account("partner");
  Identity stranger = add_account("stranger");
  const HttpResponse made = make_talking_crew("api", claude_agent(), json::array({account_id_of(partner.http)}));
  ASSERT_EQ(made.status, 201) << describe(made);
  const std::string crew_id = parse_json(made.body).at("crew_id");

  const HttpResponse by_name = partner.http.post("/v1/messages", json{{"target", "crew:api"}, {"message", "hi"}}.dump());
  EXPECT_EQ(by_name.status, 404) << "names resolve in the caller's own account: " << describe(by_name);
  const HttpResponse sent =
      partner.http.post("/v1/messages", json{{"target", "crew:" + crew_id}, {"message", "Is v2 out?"}}.dump());
  ASSERT_EQ(sent.status, 201) << describe(sent);
  const json receipt = parse_json(sent.body);
  EXPECT_FALSE(receipt.contains("call_id")) << receipt.dump();
  const json read = http_json(partner.http, "GET", "/v1/messages?inbox_id=" + receipt.at("inbox_id").get<std::string>(),
                              std::nullopt, 200);
  ASSERT_FALSE(read.at("messages").empty()) << read.dump(2);
  EXPECT_EQ(read.at("messages")[0].at("message"), "Is v2 out?");

  const HttpResponse refused =
      stranger.http.post("/v1/messages", json{{"target", "crew:" + crew_id}, {"message", "let me in"}}.dump());
  EXPECT_EQ(refused.status, 404) << describe(refused);
  EXPECT_EQ(message_of(refused).find(crew_dir("api").string()), std::string::npos) << "no path of the owner's";

  const json state = http_json(owner_http(), "GET", "/v1/agents/crew:api/state", std::nullopt, 200);
  ASSERT_EQ(state.at("inboxes").size(), 1u) << state.dump(2);
  EXPECT_EQ(state.dump().find("Is v2 out?"), std::string::npos) << "the state view never shows a body";

  // R-K3: the owner's switch holds for the partner's conversation too, and the refusal names nothing of the owner's.
  ASSERT_EQ(set_messaging("api", false).status, 200);
  const HttpResponse reply = partner.http.post(
      "/v1/messages", json{{"inbox_id", receipt.at("inbox_id")}, {"message", "And v3?"}}.dump());
  EXPECT_EQ(code_of(reply), "messaging_disabled") << describe(reply);
  EXPECT_EQ(message_of(reply).find("crews set"), std::string::npos) << message_of(reply);
}

}  // namespace
}  // namespace agentworks::testing
