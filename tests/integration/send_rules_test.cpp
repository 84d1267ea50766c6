// Rules of a send: submission id retries (R-M2), message length and rate (R-M10).
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class SendRules : public MessagingTest {};

// R-M2: a repeated submission_id returns the original receipt and stores no second message; the same id with a
// different text is a conflict (exit 5).
TEST_F(SendRules, RepeatedSubmissionIdReturnsOriginalReceipt_R_M2) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json first = send_as(owner(), "worker", "agent:reviewer", "Ready for review", {"--submission-id", "sub-1"});
  const json again = send_as(owner(), "worker", "agent:reviewer", "Ready for review", {"--submission-id", "sub-1"});
  EXPECT_EQ(again.at("message_id"), first.at("message_id"));
  EXPECT_EQ(again.at("conversation_id"), first.at("conversation_id"));
  EXPECT_EQ(again.at("inbox_id"), first.at("inbox_id"));
  EXPECT_EQ(again.at("accepted"), true);
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"Ready for review"});

  const CliResult different =
      owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "Other text",
                    "--submission-id", "sub-1"});
  EXPECT_EQ(different.exit_code, 5) << different.describe();
  EXPECT_EQ(different.error_code(), "conflict") << different.describe();

  // On the wire: 201 for the first, 200 for a repeat.
  const json body = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", "wire"}, {"submission_id", "sub-2"}};
  const HttpResponse created = owner_http().post("/v1/messages", body.dump());
  EXPECT_EQ(created.status, 201) << describe(created);
  const HttpResponse repeated = owner_http().post("/v1/messages", body.dump());
  EXPECT_EQ(repeated.status, 200) << describe(repeated);
  EXPECT_EQ(parse_json(repeated.body).at("message_id"), parse_json(created.body).at("message_id"));
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), (std::vector<std::string>{"Ready for review", "wire"}));
}

// R-M10: 20,000 Unicode characters are accepted (counted as characters, not bytes); 20,001 are invalid_message.
TEST_F(SendRules, MessageLengthLimit_R_M10) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const std::string longest = repeat("x", 20000);
  send_as(owner(), "worker", "agent:reviewer", longest);
  const std::string longest_multibyte = repeat("\xC3\xA9", 20000);  // 20,000 x U+00E9: 40,000 bytes
  send_as(owner(), "worker", "agent:reviewer", longest_multibyte);
  const json page = read_mailbox(owner(), "reviewer");
  EXPECT_EQ(texts_of(page), (std::vector<std::string>{longest, longest_multibyte}));

  for (const std::string& too_long : {repeat("x", 20001), repeat("\xC3\xA9", 20001)}) {
    const CliResult r =
        owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", too_long});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.error_code(), "invalid_message") << r.describe();
  }
  const CliResult empty = owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", ""});
  EXPECT_EQ(empty.exit_code, 2) << empty.describe();

  // The server itself refuses them too (a client cannot skip the check).
  const json over = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", repeat("x", 20001)}};
  const HttpResponse r = owner_http().post("/v1/messages", over.dump());
  EXPECT_EQ(r.status, 400) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "invalid_message") << describe(r);
  const json none = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", ""}};
  const HttpResponse r2 = owner_http().post("/v1/messages", none.dump());
  EXPECT_EQ(r2.status, 400) << describe(r2);
  EXPECT_EQ(error_code_of(r2.body), "invalid_message") << describe(r2);
  // Only white space is no message: refused by the CLI before any request and by the server itself.
  const CliResult blank =
      owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", " \n\t "});
  EXPECT_EQ(blank.exit_code, 2) << blank.describe();
  EXPECT_EQ(blank.error_code(), "invalid_message") << blank.describe();
  const json spaces = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", " \n\xE3\x80\x80\t"}};
  const HttpResponse r3 = owner_http().post("/v1/messages", spaces.dump());
  EXPECT_EQ(r3.status, 400) << describe(r3);
  EXPECT_EQ(error_code_of(r3.body), "invalid_message") << describe(r3);
  EXPECT_EQ(read_mailbox(owner(), "reviewer").at("messages").size(), 2u);
}

// R-M10: N accepted messages per hour per conversation, counting both directions; other conversations unaffected.
TEST_F(SendRules, RateLimitPerConversationBothDirections_R_M10) {
  start_server({"--rate-limit-per-hour", "3"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  register_agent(owner(), "planner");
  const json first = send_as(owner(), "worker", "agent:reviewer", "one");
  const std::string inbox = first.at("inbox_id").get<std::string>();
  send_as(owner(), "worker", "agent:reviewer", "two");
  reply_in(owner(), "reviewer", inbox, "three (reply)");

  const CliResult fourth =
      owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "four"});
  EXPECT_EQ(fourth.exit_code, 5) << fourth.describe();
  EXPECT_EQ(fourth.error_code(), "rate_limited") << fourth.describe();
  const CliResult reply = owner().json({"messages", "send", "--agent", "reviewer", "--inbox", inbox, "--message", "late reply"});
  EXPECT_EQ(reply.exit_code, 5) << reply.describe();
  EXPECT_EQ(reply.error_code(), "rate_limited") << reply.describe();

  // Another conversation has its own budget.
  send_as(owner(), "planner", "agent:reviewer", "from planner");
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox)), (std::vector<std::string>{"one", "two", "three (reply)"}));
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), (std::vector<std::string>{"one", "two", "from planner"}));

  const json wire = {{"agent_name", "worker"}, {"target", "agent:reviewer"}, {"message", "wire"}};
  const HttpResponse r = owner_http().post("/v1/messages", wire.dump());
  EXPECT_EQ(r.status, 429) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "rate_limited") << describe(r);
}

}  // namespace
}  // namespace agentworks::testing

namespace agentworks::testing {
namespace {

// R-X3: a message whose receiver's turn ended silent after a nudge reads `unanswered`, and its sender gets one
// status line in the conversation (kind "status", not counted toward the rate); a later reply still answers it.
// The person's nudge switch is checked before anything is written.
TEST_F(SendRules, AnUnansweredMessageTellsItsSenderOnceOutsideTheRateLimit_RX3) {
  start_server({"--rate-limit-per-hour", "3"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json first = send_as(owner(), "worker", "agent:reviewer", "one");
  const std::string id = first.at("message_id");
  const std::string inbox = first.at("inbox_id");
  const std::string receipt_path = "/v1/messages/" + id + "/receipt";
  const std::string unanswered = R"({"delivery":"admitted","reply_state":"unanswered"})";
  EXPECT_EQ(http_json(owner_http(), "POST", receipt_path, unanswered, 200).at("delivery").at("reply_state"),
            "unanswered");
  EXPECT_EQ(http_json(owner_http(), "POST", receipt_path, unanswered, 200).at("delivery").at("reply_state"),
            "unanswered");
  EXPECT_EQ(error_code_of(owner_http().post(receipt_path, R"({"delivery":"admitted","reply_state":"maybe"})").body),
            "bad_request");
  const json page = read_inbox(owner(), inbox);
  ASSERT_EQ(page.at("messages").size(), 2u) << page.dump();
  const json status = page.at("messages")[1];
  EXPECT_EQ(status.at("kind"), "status");
  EXPECT_EQ(status.at("message"), "reviewer ended its turn without replying to " + id + ".");
  EXPECT_EQ(status.at("recipient").at("agent_name"), "worker") << status.dump();
  EXPECT_TRUE(status.at("sender").at("agent_name").is_null()) << status.dump();  // the server's words, not an agent's

  reply_in(owner(), "reviewer", inbox, "answered late");
  EXPECT_EQ(http_json(owner_http(), "GET", receipt_path, std::nullopt, 200).at("delivery").at("reply_state"),
            "replied");
  send_as(owner(), "worker", "agent:reviewer", "two");  // the third counted message: the status line was not one
  const CliResult fourth =
      owner().json({"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "four"});
  EXPECT_EQ(fourth.error_code(), "rate_limited") << fourth.describe();
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox)),
            (std::vector<std::string>{"one", "reviewer ended its turn without replying to " + id + ".", "answered late",
                                      "two"}));

  // The person's switch: on by default, shown, set, and refused whole when a value is bad.
  EXPECT_EQ(cli_ok(owner(), {"agents", "show", "reviewer"}).at("nudge"), "on");
  EXPECT_EQ(cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"}).at("nudge"), "off");
  EXPECT_EQ(owner().json({"agents", "set", "reviewer", "--nudge", "sometimes"}).exit_code, 2);
  EXPECT_EQ(owner().json({"agents", "set", "reviewer"}).exit_code, 2);
  EXPECT_EQ(error_code_of(owner_http()
                              .post("/v1/agents/reviewer/communication", R"({"communication":"direct","nudge":"1"})")
                              .body),
            "bad_request");
  const json shown = cli_ok(owner(), {"agents", "show", "reviewer"});
  EXPECT_EQ(shown.at("nudge"), "off");
  EXPECT_EQ(shown.at("communication"), "explicit");
}

}  // namespace
}  // namespace agentworks::testing
