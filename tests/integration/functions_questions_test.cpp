// Questions from an execution to its caller (R-F3 pending inputs): `agentworks functions ask` inside the execution
// (its call from the environment and the per-call secret) blocks until the caller answers with `functions reply`;
// meanwhile the call reads waiting_input with the request in pending_inputs. The per-call secret grants nothing
// else, and answering grants nothing else.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "testing/binaries.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

class FunctionsQuestions : public CrewTest {
 protected:
  // A script that asks `question` with the real CLI and prints "answer=<reply>"; it keeps its per-call secret in
  // the Crew folder so the test can try it on other routes.
  std::string asking_script(const std::string& question) {
    return "printf '%s' \"$AGENTWORKS_CALL_TOKEN\" > call-token.txt\n"
           "answer=$('" + cli_binary() + "' functions ask --question '" + question + "') || { echo \"ask failed $?\" >&2; exit 7; }\n"
           "echo \"answer=$answer\"";
  }
};

// R-F3: waiting_input with pending_inputs, the reply through the CLI, the answer printed by ask, the call completes;
// a second reply is conflict, an unknown request not_found.
TEST_F(FunctionsQuestions, AskReplyCompletes_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("asks")}), {{"tools/asks.sh", asking_script("Which branch?")}});
  const std::string id = call_ok("api", "asks").at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_EQ(waiting.at("pending_inputs").size(), 1u) << waiting.dump();
  const json& pending = waiting.at("pending_inputs").at(0);
  EXPECT_EQ(pending.at("question"), "Which branch?");
  EXPECT_TRUE(pending.at("asked_at").is_number_integer());
  const std::string request = pending.at("request_id").get<std::string>();
  EXPECT_TRUE(waiting.at("answer").is_null()) << "a pending question is not completion";
  EXPECT_TRUE(waiting.at("finished_at").is_null());

  const CliResult unknown = owner().json({"functions", "reply", "--call", id, "--request", "req_unknown", "--answer", "x"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.describe();
  EXPECT_EQ(unknown.error_code(), "not_found") << unknown.describe();
  const json replied = cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "main"});
  EXPECT_EQ(replied.at("answered"), true) << replied.dump();
  EXPECT_EQ(replied.at("request_id"), request);
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_EQ(answer_of(done), "answer=main") << "ask printed only the answer: " << done.dump();
  EXPECT_TRUE(done.at("pending_inputs").empty()) << done.dump();
  const auto events = event_types(done);
  EXPECT_NE(std::find(events.begin(), events.end(), "input_requested"), events.end()) << done.dump();
  EXPECT_NE(std::find(events.begin(), events.end(), "input_answered"), events.end()) << done.dump();

  const HttpResponse again = owner_http().post("/v1/calls/" + id + "/replies",
                                               json{{"request_id", request}, {"answer", "dev"}}.dump());
  EXPECT_EQ(error_code_of(again.body), "conflict") << describe(again);
}

// R-F3: the question goes back to `running` once answered over HTTP by the caller (`crews reply` alias too), and
// the per-call secret is refused everywhere except its own call's question routes.
TEST_F(FunctionsQuestions, CallSecretGrantsNothingElse_R_F3) {
  start_server();
  make_crew("api",
            json::array({function_decl("asks"), function_decl("other")}),
            {{"tools/asks.sh", asking_script("Proceed?") + "\n" + blocking_script()}, {"tools/other.sh", "echo other"}});
  const std::string id = call_ok("api", "asks").at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_TRUE(wait_file(crew_dir("api") / "call-token.txt"));
  const HttpClient secret(server_->url(), read_file(crew_dir("api") / "call-token.txt"));
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v1/crews"}, {"GET", "/v1/crews/api"}, {"GET", "/v1/agents"}, {"GET", "/v1/calls/" + id},
           {"GET", "/v1/connections"}}) {
    const HttpResponse r = secret.request(method, path);
    EXPECT_TRUE(r.status == 401 || r.status == 403 || r.status == 404) << method << " " << path << " " << describe(r);
  }
  const HttpResponse self_reply = secret.post("/v1/calls/" + id + "/replies",
      json{{"request_id", waiting.at("pending_inputs").at(0).at("request_id")}, {"answer", "yes"}}.dump());
  EXPECT_TRUE(self_reply.status == 401 || self_reply.status == 403 || self_reply.status == 404) << describe(self_reply);
  const HttpResponse self_call = call(secret, "api", "other", json::object());
  EXPECT_TRUE(self_call.status == 401 || self_call.status == 403 || self_call.status == 404) << describe(self_call);

  const json replied = cli_ok(owner(), {"crews", "reply", "--call", id, "--request",
                                        waiting.at("pending_inputs").at(0).at("request_id").get<std::string>(),
                                        "--answer", "yes"});
  EXPECT_EQ(replied.at("answered"), true);
  const json running = wait_status(id, [](const json& c) { return c.value("status", "") == "running"; });
  EXPECT_TRUE(running.at("pending_inputs").empty()) << running.dump();
  open_gate(crew_dir("api"));
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_NE(done.at("answer").get<std::string>().find("answer=yes"), std::string::npos) << done.dump();
  // Once the call ended, its secret is refused on its own question route too.
  const HttpResponse late = secret.post("/v1/calls/" + id + "/questions", json{{"question", "more?"}}.dump());
  EXPECT_TRUE(late.status == 401 || late.status == 403 || late.status == 404 || late.status == 409) << describe(late);
}

// R-F3: a question with a schema (`functions ask --schema`) shows it in pending_inputs[].schema; a reply that is not
// JSON, or JSON that breaks the schema, is invalid_input naming the path and the question stays pending; a valid
// reply is the answer ask prints.
TEST_F(FunctionsQuestions, QuestionSchemaChecksTheReply_R_F3) {
  start_server();
  const json schema = {{"type", "object"},
                       {"properties", {{"target", {{"type", "string"}, {"enum", json::array({"staging", "prod"})}}}}},
                       {"required", json::array({"target"})}};
  make_crew("api", json::array({function_decl("asks")}),
            {{"tools/asks.sh", "answer=$('" + cli_binary() + "' functions ask --question 'Deploy where?' --schema '" +
                                   schema.dump() + "') || exit 7\necho \"answer=$answer\""}});
  const std::string id = call_ok("api", "asks").at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_EQ(waiting.at("pending_inputs").size(), 1u) << waiting.dump();
  EXPECT_EQ(waiting.at("pending_inputs")[0].at("schema"), schema) << waiting.dump();
  const std::string request = waiting.at("pending_inputs")[0].at("request_id").get<std::string>();

  const CliResult not_json = owner().json({"functions", "reply", "--call", id, "--request", request, "--answer", "prod"});
  EXPECT_EQ(not_json.error_code(), "invalid_input") << not_json.describe();
  const CliResult wrong = owner().json(
      {"functions", "reply", "--call", id, "--request", request, "--answer", "{\"target\":\"dev\"}"});
  EXPECT_EQ(wrong.error_code(), "invalid_input") << wrong.describe();
  EXPECT_NE(wrong.out.find("answer.target"), std::string::npos) << wrong.describe();
  const json still = status(id);
  EXPECT_EQ(still.at("status"), "waiting_input") << still.dump();
  ASSERT_EQ(still.at("pending_inputs").size(), 1u) << still.dump();
  EXPECT_EQ(still.at("pending_inputs")[0].at("request_id"), request);

  cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "{\"target\":\"prod\"}"});
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_EQ(answer_of(done), "answer={\"target\":\"prod\"}") << done.dump();
}

// R-F3: a question whose schema is not a usable JSON Schema is invalid_input and asks nothing (HTTP and CLI).
TEST_F(FunctionsQuestions, BadQuestionSchemaRefused_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("asks")}),
            {{"tools/asks.sh", "printf '%s' \"$AGENTWORKS_CALL_TOKEN\" > call-token.txt\n'" + cli_binary() +
                                   "' functions ask --question 'Q?' --json --schema '{\"type\":\"nope\"}' > ask.out\n"
                                   "echo \"$?\" > ask.exit\n" + blocking_script()}});
  const std::string id = call_ok("api", "asks").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_file(crew_dir("api") / "ask.exit"));
  EXPECT_NE(trim_newlines(read_file(crew_dir("api") / "ask.exit")), "0");
  EXPECT_NE(read_file(crew_dir("api") / "ask.out").find("invalid_input"), std::string::npos)
      << read_file(crew_dir("api") / "ask.out");
  const HttpClient secret(server_->url(), read_file(crew_dir("api") / "call-token.txt"));
  for (const json& schema : {json{{"type", "nope"}}, json("a string"), json{{"required", "x"}}}) {
    const HttpResponse r =
        secret.post("/v1/calls/" + id + "/questions", json{{"question", "Q?"}, {"schema", schema}}.dump());
    EXPECT_EQ(error_code_of(r.body), "invalid_input") << schema.dump() << " " << describe(r);
  }
  const json running = status(id);
  EXPECT_EQ(running.at("status"), "running") << running.dump();
  EXPECT_TRUE(running.at("pending_inputs").empty()) << running.dump();
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
}

// R-F3: `functions ask` outside an execution (no call in the environment) is a usage error and asks nothing.
TEST_F(FunctionsQuestions, AskOutsideAnExecutionRefused_R_F3) {
  start_server();
  const CliResult r = owner().json({"functions", "ask", "--question", "hello?"});
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.exit_code == 2 || r.exit_code == 3) << r.describe();
}

}  // namespace
}  // namespace agentworks::testing
