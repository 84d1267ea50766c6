// Bad input never crashes the server and changes nothing: malformed requests get a 4xx JSON error object with a
// stable code (protocol.md "Error codes"), and the server keeps answering.
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class BadInput : public MessagingTest {
 protected:
  void expect_error(const HttpResponse& r, int status, const std::string& code, const std::string& what) {
    EXPECT_EQ(r.status, status) << what << ": " << describe(r);
    EXPECT_EQ(error_code_of(r.body), code) << what << ": " << describe(r);
    if (r.status != 0) {
      const json body = json::parse(r.body, nullptr, false);
      EXPECT_TRUE(!body.is_discarded() && body.contains("error") && body["error"].contains("message") &&
                  body["error"]["message"].is_string() && !body["error"]["message"].get<std::string>().empty())
          << what << ": " << describe(r);
    }
  }
};

TEST_F(BadInput, MalformedRequestsGetJsonErrorsAndServerStaysUp) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const HttpClient& http = owner_http();
  const json valid = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", "hi"}};

  expect_error(http.post("/v1/messages", "{not json"), 400, "bad_request", "malformed JSON");
  expect_error(http.post("/v1/messages", ""), 400, "bad_request", "empty body");
  expect_error(http.post("/v1/messages", "[1,2,3]"), 400, "bad_request", "array body");
  expect_error(http.post("/v1/messages", "\"just a string\""), 400, "bad_request", "string body");
  json unknown = valid;
  unknown["colour"] = "blue";
  expect_error(http.post("/v1/messages", unknown.dump()), 400, "bad_request", "unknown field");
  json wrong_type = valid;
  wrong_type["message"] = 5;
  expect_error(http.post("/v1/messages", wrong_type.dump()), 400, "bad_request", "wrong type (message: number)");
  json null_target = valid;
  null_target["target"] = nullptr;
  expect_error(http.post("/v1/messages", null_target.dump()), 400, "bad_request", "wrong type (target: null)");
  json both = valid;
  both["inbox_id"] = "inb_x";
  expect_error(http.post("/v1/messages", both.dump()), 400, "bad_request", "both target and inbox_id");
  json neither = valid;
  neither.erase("target");
  expect_error(http.post("/v1/messages", neither.dump()), 400, "bad_request", "neither target nor inbox_id");
  json bad_target = valid;
  bad_target["target"] = "reviewer";
  expect_error(http.post("/v1/messages", bad_target.dump()), 400, "bad_request", "target without agent:");
  json bad_submission = valid;
  bad_submission["submission_id"] = std::string(201, 's');
  expect_error(http.post("/v1/messages", bad_submission.dump()), 400, "bad_request", "submission_id too long");
  expect_error(http.post("/v1/agents", json{{"agent_name", 7}}.dump()), 400, "bad_request", "agent_name number");
  expect_error(http.post("/v1/agents", json{{"agent_name", "x"}, {"allowed_connection_ids", "conn"}}.dump()), 400,
               "bad_request", "allowed_connection_ids not an array");
  expect_error(http.post("/v1/agents", "{\"agent_name\":\"dup\",\"agent_name\":"), 400, "bad_request", "truncated JSON");
  // Invalid UTF-8 is malformed JSON (bad_request) or an invalid message (invalid_message): either, but a 400.
  const HttpResponse bad_utf8 =
      http.post("/v1/messages", "{\"agent_name\":\"worker\",\"target\":\"agent:reviewer\",\"message\":\"\xff\xfe\"}");
  EXPECT_EQ(bad_utf8.status, 400) << describe(bad_utf8);
  EXPECT_TRUE(error_code_of(bad_utf8.body) == "bad_request" || error_code_of(bad_utf8.body) == "invalid_message")
      << describe(bad_utf8);

  // Query parameters.
  expect_error(http.get("/v1/messages?agent_name=reviewer&limit=abc"), 400, "bad_request", "limit=abc");
  expect_error(http.get("/v1/messages?agent_name=reviewer&after=zzz"), 400, "bad_request", "after=zzz");
  expect_error(http.get("/v1/messages?agent_name=reviewer&wait_seconds=-1"), 400, "bad_request", "wait_seconds=-1");
  expect_error(http.get("/v1/messages?agent_name=reviewer&after=m-5"), 400, "bad_request", "after=m-5");

  // Oversize body (over 256 KiB).
  const json huge = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", std::string(300 * 1024, 'x')}};
  expect_error(http.post("/v1/messages", huge.dump()), 413, "payload_too_large", "300 KiB body");

  // Authentication and routing.
  expect_error(HttpClient(server_->url()).get("/v1/agents"), 401, "unauthenticated", "no token");
  expect_error(HttpClient(server_->url(), "not-a-token").get("/v1/agents"), 401, "unauthenticated", "unknown token");
  expect_error(http.get("/v1/no-such-route"), 404, "not_found", "unknown route");
  expect_error(http.get("/v1/agents/nobody"), 404, "not_found", "unknown agent");
  expect_error(http.get("/v1/messages?inbox_id=inb_unknown"), 404, "not_found", "unknown inbox");
  expect_error(http.get("/v1/messages/msg_unknown/receipt"), 404, "not_found", "unknown message");

  // Garbage on the socket.
  const HttpResponse garbage = http.send_raw("THIS IS NOT HTTP\r\n\r\n", std::chrono::seconds(5));
  if (garbage.status != 0) {
    EXPECT_GE(garbage.status, 400) << describe(garbage);
  }
  const HttpResponse cut = http.send_raw("POST /v1/messages HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"a\"",
                                         std::chrono::milliseconds(500));
  (void)cut;  // the server waits for the rest or closes; either way it must stay up

  // Still up, and nothing was stored.
  const HttpResponse health = HttpClient(server_->url()).get("/v1/health");
  ASSERT_EQ(health.status, 200) << describe(health);
  EXPECT_EQ(parse_json(health.body).at("ok"), true);
  EXPECT_TRUE(server_->running());
  EXPECT_TRUE(read_mailbox(owner(), "reviewer").at("messages").empty());
  const HttpResponse ok = http.post("/v1/messages", valid.dump());
  EXPECT_EQ(ok.status, 201) << describe(ok);
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"hi"});
}

// R-X2: a decline goes with "processed", only as "no_reply", only by the receiver; each refusal changes nothing.
TEST_F(BadInput, ADeclineIsCheckedAndChangesNothingWhenRefused_RX2) {
  start_server();
  register_agent(owner(), "worker");
  register_agent(owner(), "reviewer");
  const json sent = send_as(owner(), "worker", "agent:reviewer", "FYI");
  const std::string path = "/v1/messages/" + sent.at("message_id").get<std::string>() + "/receipt";
  Identity reviewer = create_child(owner_token(), "reviewer");
  Identity worker = create_child(owner_token(), "worker");
  expect_error(reviewer.http.post(path, R"({"delivery":"processed","reply_state":"replied"})"), 400, "bad_request",
               "only no_reply");
  expect_error(reviewer.http.post(path, R"({"delivery":"admitted","reply_state":"no_reply"})"), 400, "bad_request",
               "a decline is processed");
  expect_error(worker.http.post(path, R"({"delivery":"processed","reply_state":"no_reply"})"), 403, "forbidden",
               "the sender may not decline for the receiver");
  const json still = http_json(owner_http(), "GET", path, std::nullopt, 200).at("delivery");
  EXPECT_EQ(still.at("reply_state"), "pending") << still.dump();
  EXPECT_EQ(still.at("state"), "stored") << still.dump();
  const json declined = http_json(reviewer.http, "POST", path, R"({"delivery":"processed","reply_state":"no_reply"})", 200);
  EXPECT_EQ(declined.at("delivery").at("reply_state"), "no_reply");
}

// CLI usage errors: exit 2, and with --json the error object on stdout.
TEST_F(BadInput, CliUsageErrorsExit2) {
  start_server();
  const CliResult no_target = owner().json({"messages", "send", "--agent", "worker", "--message", "x"});
  EXPECT_EQ(no_target.exit_code, 2) << no_target.describe();
  EXPECT_FALSE(no_target.error_code().empty()) << no_target.describe();
  const CliResult unknown_option = owner().json({"messages", "list", "--no-such-option"});
  EXPECT_EQ(unknown_option.exit_code, 2) << unknown_option.describe();
  EXPECT_EQ(unknown_option.error_code(), "usage") << unknown_option.describe();
  const CliResult bad_wait = owner().json({"messages", "read", "--agent", "reviewer", "--wait", "26"});
  EXPECT_EQ(bad_wait.exit_code, 2) << bad_wait.describe();
  const CliResult bad_limit = owner().json({"messages", "read", "--agent", "reviewer", "--limit", "101"});
  EXPECT_EQ(bad_limit.exit_code, 2) << bad_limit.describe();
  const CliResult not_found = owner().json({"messages", "read", "--agent", "nobody", "--after", "0"});
  EXPECT_EQ(not_found.exit_code, 4) << not_found.describe();
  EXPECT_EQ(not_found.error_code(), "not_found") << not_found.describe();

  // A mistyped command word is named with the command it was probably meant to be; one nowhere near any is not.
  const CliResult typo = owner().run({"mesages", "list"});
  EXPECT_EQ(typo.exit_code, 2) << typo.describe();
  EXPECT_NE(typo.err.find(R"(unknown command or argument "mesages" (did you mean "messages"?))"), std::string::npos)
      << typo.describe();
  const auto message_of = [](const CliResult& r) { return r.json().at("error").value("message", ""); };
  const CliResult sub_typo = owner().json({"messages", "sned", "--agent", "worker"});
  EXPECT_NE(message_of(sub_typo).find("(did you mean \"send\"?)"), std::string::npos) << sub_typo.describe();
  const CliResult far = owner().json({"zzzzzz"});
  EXPECT_EQ(far.error_code(), "usage") << far.describe();
  EXPECT_EQ(message_of(far).find("did you mean"), std::string::npos) << far.describe();
  // Unexpected words are listed in the order they were typed.
  const CliResult extras = owner().json({"status", "first", "second", "third"});
  EXPECT_EQ(extras.exit_code, 2) << extras.describe();
  EXPECT_NE(message_of(extras).find("unexpected arguments: first second third"), std::string::npos)
      << extras.describe();
}

}  // namespace
}  // namespace agentworks::testing
