// Delegation from a chat (R-D1, R-D2): a chat's connection (a child bound to its agent) uses a Crew's functions
// only once the person granted that agent the Crew, is the caller of record of what it calls and reads only those
// calls; the agent that asked for it is told of each question and of the outcome, once, by a message of its own
// kind in the call's own conversation (the same offer path as any message). From a terminal, `--notify
// agent:NAME` names the agent to tell.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"
#include "testing/binaries.hpp"

namespace agentworks::testing {
namespace {

class FunctionsDelegation : public CrewTest {
 protected:
  // Calls made as `who`; the answer's status must be `expected`.
  HttpResponse call_as(const Identity& who, const std::string& crew, const std::string& function,
                       const json& extra = json::object()) {
    return call(who.http, crew, function, json::object(), extra);
  }
  // The call notices in `agent`'s mailbox (kinds other than "message").
  json notices_for(const std::string& agent) {
    json out = json::array();
    const json page = read_mailbox(owner(), agent);
    for (const json& m : page.at("messages"))
      if (m.value("kind", "") != "message") out.push_back(m);
    return out;
  }
  void make_two_crews() {
    make_crew("api", json::array({function_decl("quick"), function_decl("hold")}),
              {{"tools/quick.sh", "echo quick done"}, {"tools/hold.sh", blocking_script()}});
    make_crew("ops", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo ops done"}});
  }
};

// R-D1: without a grant the chat's connection is refused with the person's command and nothing is made; the
// grant (by the person's login, through the CLI) admits exactly the Crews it names; revoke takes it back;
// `all` admits every Crew the account may call. The grant is shown by `agents show`.
TEST_F(FunctionsDelegation, ChatUsesFunctionsOnlyWithThePersonsGrant_R_D1) {
  start_server();
  make_two_crews();
  register_agent(owner(), "worker");
  Identity chat = create_child(owner_token(), "worker");

  for (const HttpResponse& refused : {chat.http.get("/v1/crews/api/functions"), call_as(chat, "api", "quick")}) {
    EXPECT_EQ(refused.status, 403) << describe(refused);
    EXPECT_EQ(error_code_of(refused.body), "forbidden") << describe(refused);
    EXPECT_NE(refused.body.find("agentworks agents grant worker --functions api"), std::string::npos) << refused.body;
  }
  EXPECT_TRUE(http_json(owner_http(), "GET", "/v1/calls", std::nullopt, 200).at("calls").empty())
      << "a refused call makes nothing";
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "worker"}).at("functions"), json::array());

  const json granted = cli_ok(owner(), {"agents", "grant", "worker", "--functions", "api"});
  EXPECT_EQ(granted.at("functions"), json::array({"api"})) << granted.dump();
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "worker"}).at("functions"), json::array({"api"}));
  const HttpResponse made = call_as(chat, "api", "quick");
  ASSERT_EQ(made.status, 201) << describe(made);
  const json accepted = parse_json(made.body);
  EXPECT_EQ(accepted.at("caller").at("agent_name"), "worker") << accepted.dump();
  EXPECT_EQ(accepted.at("notify"), "agent:worker") << "a chat's call tells its own agent by default";
  EXPECT_EQ(error_code_of(call_as(chat, "ops", "quick").body), "forbidden") << "ops was not granted";

  const json revoked = cli_ok(owner(), {"agents", "revoke", "worker", "--functions"});
  EXPECT_EQ(revoked.at("functions"), json::array());
  EXPECT_EQ(error_code_of(call_as(chat, "api", "quick").body), "forbidden");

  EXPECT_EQ(cli_ok(owner(), {"agents", "grant", "worker", "--functions", "all"}).at("functions"), "all");
  EXPECT_EQ(call_as(chat, "ops", "quick").status, 201);
  EXPECT_EQ(call_as(chat, "api", "quick").status, 201);

  // The grant belongs to the name: a new chat connection of the same agent holds it too.
  Identity again = create_child(owner_token(), "worker");
  EXPECT_EQ(call_as(again, "ops", "quick").status, 201);
}

// R-D1: an agent cannot grant itself: the grant routes take the person's login only, and a refused grant changes
// nothing. Bad grants are refused and change nothing either.
TEST_F(FunctionsDelegation, AChatCannotGrantItself_R_D1) {
  start_server();
  make_two_crews();
  register_agent(owner(), "worker");
  Identity chat = create_child(owner_token(), "worker");
  const HttpResponse self = chat.http.post("/v1/agents/worker/functions", json{{"functions", "all"}}.dump());
  EXPECT_EQ(self.status, 403) << describe(self);
  const CliResult cli = chat.cli.json({"agents", "grant", "worker", "--functions", "all"});
  EXPECT_EQ(cli.exit_code, 3) << cli.describe();
  EXPECT_EQ(cli.error_code(), "forbidden") << cli.describe();
  EXPECT_EQ(chat.http.del("/v1/agents/worker/functions").status, 403);
  for (const json& bad : {json{{"functions", json::array()}}, json{{"functions", "some"}},
                          json{{"functions", json::array({"nope"})}}, json{{"functions", json::array({1})}},
                          json{{"crews", "all"}}}) {
    const HttpResponse r = owner_http().post("/v1/agents/worker/functions", bad.dump());
    EXPECT_GE(r.status, 400) << bad.dump() << " " << describe(r);
  }
  const CliResult empty_entry = owner().json({"agents", "grant", "worker", "--functions", "api,,ops"});
  EXPECT_EQ(empty_entry.exit_code, 2) << empty_entry.describe();
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "worker"}).at("functions"), json::array()) << "nothing was granted";
  EXPECT_EQ(error_code_of(call_as(chat, "api", "quick").body), "forbidden");
}

// R-D1: a function's allowed_callers may name agents. "agent:NAME" narrows the owner's chats to the agents named
// (the owner's login still calls); "agent:NAME@acc_…" admits that chat of another account, not the account's other
// connections. The person's grant is still needed on both sides; a malformed entry is refused at registration.
TEST_F(FunctionsDelegation, AllowedCallersNameAgents_R_D1) {
  start_server();
  Identity partner = add_account("partner");
  const std::string partner_account = account_id_of(partner.http);
  const json crew = make_crew(
      "api",
      json::array({function_decl("open"),
                   function_decl("narrow", {{"allowed_callers", {"agent:worker", "agent:helper@" + partner_account}}})}),
      {{"tools/open.sh", "echo open"}, {"tools/narrow.sh", "echo narrow"}});
  const std::string crew_id = crew.at("crew_id").get<std::string>();
  for (const char* name : {"worker", "critic"}) {
    register_agent(owner(), name);
    cli_ok(owner(), {"agents", "grant", name, "--functions", "all"});
  }
  Identity worker = create_child(owner_token(), "worker");
  Identity critic = create_child(owner_token(), "critic");
  EXPECT_EQ(call_as(worker, "api", "narrow").status, 201);
  EXPECT_EQ(error_code_of(call_as(critic, "api", "narrow").body), "not_found") << "critic is not named";
  EXPECT_EQ(call_as(critic, "api", "open").status, 201) << "the narrowing is per function";
  EXPECT_EQ(call(owner_http(), "api", "narrow", json::object()).status, 201) << "the owner's login still calls";
  const json seen_by_critic = http_json(critic.http, "GET", "/v1/crews/api/functions", std::nullopt, 200);
  ASSERT_EQ(seen_by_critic.at("functions").size(), 1u) << seen_by_critic.dump();

  for (const char* name : {"helper", "other"}) register_agent(partner.cli, name);
  cli_ok(partner.cli, {"agents", "grant", "helper", "--functions", crew_id});
  const CliResult not_grantable = partner.cli.json({"agents", "grant", "other", "--functions", crew_id});
  EXPECT_EQ(not_grantable.error_code(), "not_found") << "no function of the Crew admits other: " << not_grantable.describe();
  cli_ok(partner.cli, {"agents", "grant", "other", "--functions", "all"});
  Identity helper = create_child(partner.token, "helper");
  Identity other = create_child(partner.token, "other");
  const HttpResponse by_helper = call_as(helper, crew_id, "narrow");
  ASSERT_EQ(by_helper.status, 201) << describe(by_helper);
  EXPECT_EQ(parse_json(by_helper.body).at("caller").at("agent_name"), "helper");
  EXPECT_EQ(error_code_of(call_as(other, crew_id, "narrow").body), "not_found");
  EXPECT_EQ(error_code_of(call(partner.http, crew_id, "narrow", json::object()).body), "not_found")
      << "naming an agent of an account does not admit the account";
  EXPECT_EQ(error_code_of(call_as(helper, crew_id, "open").body), "not_found");

  for (const std::string& bad : {std::string("agent:"), std::string("agent:two words"), std::string("agent:x@nope"),
                                 std::string("agent:x@"), std::string("acc_")}) {
    const std::filesystem::path dir = make_crew_dir("bad");
    write_script(dir, "tools/quick.sh", "echo hi");
    write_functions(dir, json::array({function_decl("quick", {{"allowed_callers", {bad}}})}));
    const HttpResponse refused = register_crew(owner_http(), "bad", dir);
    EXPECT_EQ(error_code_of(refused.body), "invalid_declaration") << bad << " " << describe(refused);
    EXPECT_NE(refused.body.find("agent:NAME@acc_"), std::string::npos) << refused.body;
  }
}

// R-D1: a chat reads, answers and cancels only the calls its agent made; the person's login reads them all.
TEST_F(FunctionsDelegation, AChatReadsOnlyItsAgentsCalls_R_D1) {
  start_server();
  make_two_crews();
  for (const char* name : {"worker", "critic"}) {
    register_agent(owner(), name);
    cli_ok(owner(), {"agents", "grant", name, "--functions", "api"});
  }
  Identity worker = create_child(owner_token(), "worker");
  Identity critic = create_child(owner_token(), "critic");
  const std::string by_worker = parse_json(call_as(worker, "api", "hold").body).at("call_id").get<std::string>();
  const std::string by_critic = parse_json(call_as(critic, "api", "quick").body).at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  EXPECT_EQ(status_as(worker.http, by_worker).status, 200);
  EXPECT_EQ(status_as(worker.http, by_critic).status, 404) << "another agent's call is not_found";
  EXPECT_EQ(critic.http.post("/v1/calls/" + by_worker + "/cancel", "{}").status, 404);
  EXPECT_EQ(status(by_worker).at("status"), "running") << "the critic's cancel changed nothing";
  const json listed = http_json(worker.http, "GET", "/v1/calls", std::nullopt, 200);
  ASSERT_EQ(listed.at("calls").size(), 1u) << listed.dump();
  EXPECT_EQ(listed.at("calls").at(0).at("call_id"), by_worker);
  const HttpResponse own_cancel = worker.http.post("/v1/calls/" + by_worker + "/cancel", json{{"wait_seconds", 25}}.dump());
  EXPECT_EQ(parse_json(own_cancel.body).at("status"), "cancelled") << describe(own_cancel);
  EXPECT_EQ(status(by_critic).at("caller").at("agent_name"), "critic") << "the login reads every call";
}

// R-D2: the calling chat's agent gets exactly one outcome notice: kind call_outcome with the call id and status
// beside a text that holds the answer and how to read the rest, in the call's own conversation, which takes no
// sends; `notify: false` asks for none.
TEST_F(FunctionsDelegation, TheOutcomeIsNoticedOnceToTheCallingAgent_R_D2) {
  start_server();
  make_two_crews();
  register_agent(owner(), "worker");
  cli_ok(owner(), {"agents", "grant", "worker", "--functions", "api"});
  Identity chat = create_child(owner_token(), "worker");
  const std::string id = parse_json(call_as(chat, "api", "quick").body).at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(id).at("status"), "completed");
  const json notices = notices_for("worker");
  ASSERT_EQ(notices.size(), 1u) << read_mailbox(owner(), "worker").dump();
  const json& n = notices.at(0);
  EXPECT_EQ(n.at("kind"), "call_outcome");
  EXPECT_EQ(n.at("call_id"), id);
  EXPECT_EQ(n.at("status"), "completed");
  const std::string text = n.at("message").get<std::string>();
  EXPECT_NE(text.find("quick done"), std::string::npos) << text;
  EXPECT_NE(text.find("get_function_call"), std::string::npos) << text;
  EXPECT_NE(text.find("functions call-status --call " + id), std::string::npos) << text;
  EXPECT_TRUE(n.at("sender").at("agent_name").is_null()) << "no agent wrote it: " << n.dump();

  const HttpResponse reply = chat.http.post(
      "/v1/messages", json{{"inbox_id", n.at("inbox_id")}, {"message", "thanks"}}.dump());
  EXPECT_EQ(reply.status, 400) << describe(reply);
  EXPECT_NE(reply.body.find("takes no messages"), std::string::npos) << reply.body;

  const std::string quiet =
      parse_json(call_as(chat, "api", "quick", json{{"notify", false}}).body).at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(quiet).at("status"), "completed");
  EXPECT_EQ(notices_for("worker").size(), 1u) << "notify false asks for no notice";
  EXPECT_EQ(read_mailbox(owner(), "worker").at("messages").size(), 1u);
}

// R-D2 from a terminal: `functions call --notify agent:NAME` tells that agent of the question (with the reply
// command) and of the outcome (failed, with its error), each once; bad --notify values are refused and make
// nothing.
TEST_F(FunctionsDelegation, TerminalCallNotifiesTheNamedAgentOfQuestionAndOutcome_R_D2) {
  start_server();
  make_crew("api", json::array({function_decl("asks")}),
            {{"tools/asks.sh", "answer=$('" + cli_binary() + "' functions ask --question 'Which branch?') || exit 7\n"
                               "echo \"got $answer\" >&2; exit 3"}});
  register_agent(owner(), "reviewer");
  const json made = cli_ok(owner(), {"functions", "call", "--crew", "api", "--function", "asks", "--args", "{}",
                                     "--notify", "agent:reviewer"});
  const std::string id = made.at("call_id").get<std::string>();
  EXPECT_EQ(made.at("notify"), "agent:reviewer");
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  const std::string request = waiting.at("pending_inputs").at(0).at("request_id").get<std::string>();
  json notices;
  ASSERT_TRUE(wait_until([&] { return !(notices = notices_for("reviewer")).empty(); }));
  ASSERT_EQ(notices.size(), 1u) << notices.dump();
  EXPECT_EQ(notices.at(0).at("kind"), "call_question");
  const std::string asked = notices.at(0).at("message").get<std::string>();
  EXPECT_NE(asked.find("Which branch?"), std::string::npos) << asked;
  EXPECT_NE(asked.find("functions reply --call " + id + " --request " + request), std::string::npos) << asked;

  cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "main"});
  ASSERT_EQ(wait_terminal(id).at("status"), "failed");
  notices = notices_for("reviewer");
  ASSERT_EQ(notices.size(), 2u) << notices.dump();
  EXPECT_EQ(notices.at(1).at("kind"), "call_outcome");
  EXPECT_EQ(notices.at(1).at("status"), "failed");
  EXPECT_EQ(notices.at(1).at("inbox_id"), notices.at(0).at("inbox_id")) << "one conversation per call and agent";
  const std::string outcome = notices.at(1).at("message").get<std::string>();
  EXPECT_NE(outcome.find("exit_status"), std::string::npos) << outcome;
  EXPECT_NE(outcome.find("got main"), std::string::npos) << outcome;

  const CliResult unknown = owner().json({"functions", "call", "--crew", "api", "--function", "asks", "--args", "{}",
                                          "--notify", "agent:nobody"});
  EXPECT_EQ(unknown.error_code(), "not_found") << unknown.describe();
  const CliResult malformed = owner().json({"functions", "call", "--crew", "api", "--function", "asks", "--args",
                                            "{}", "--notify", "reviewer"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.describe();
  const HttpResponse login_true = call(owner_http(), "api", "asks", json::object(), json{{"notify", true}});
  EXPECT_EQ(error_code_of(login_true.body), "bad_request") << describe(login_true);
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/calls", std::nullopt, 200).at("calls").size(), 1u)
      << "the refused calls made nothing";
}

// R-D2: the notice shows what the record holds and no more: the first 2,000 characters of a long answer (and says
// it goes on), an inline result up to 8 KiB.
TEST_F(FunctionsDelegation, TheNoticeShowsTheAnswersStartAndASmallResult_R_D2) {
  start_server();
  const json words = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", {"n"}}};
  make_crew("api",
            json::array({function_decl("long"), function_decl("counted", {{"output_schema", words}})}),
            {{"tools/long.sh", "i=0; while [ $i -lt 300 ]; do printf 'abcdefghij'; i=$((i+1)); done; echo END"},
             {"tools/counted.sh", "printf '{\"n\":42}' > \"$FUNCTION_RESULT_FILE\"; echo counted"}});
  register_agent(owner(), "reviewer");
  for (const char* f : {"long", "counted"}) {
    const std::string id = call_ok("api", f, json::object(), json{{"notify", "agent:reviewer"}}).at("call_id");
    ASSERT_EQ(wait_terminal(id).at("status"), "completed") << f;
  }
  const json notices = notices_for("reviewer");
  ASSERT_EQ(notices.size(), 2u) << notices.dump();
  const std::string long_text = notices.at(0).at("message").get<std::string>();
  EXPECT_EQ(long_text.find("END"), std::string::npos) << "only the first 2,000 characters";
  std::size_t shown = 0;
  for (auto pos = long_text.find("abcdefghij"); pos != std::string::npos; pos = long_text.find("abcdefghij", pos + 1))
    ++shown;
  EXPECT_EQ(shown, 200u) << "2,000 characters of the answer: " << long_text;
  EXPECT_NE(long_text.find("the answer goes on"), std::string::npos) << long_text;
  const std::string counted = notices.at(1).at("message").get<std::string>();
  EXPECT_NE(counted.find("Result (JSON): {\"n\":42}"), std::string::npos) << counted;
}

}  // namespace
}  // namespace agentworks::testing
