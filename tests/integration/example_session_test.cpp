// The contract's example session, end to end through the CLI, which uses the same authenticated server.
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class ExampleSession : public MessagingTest {};

bool starts_with(const std::string& s, char c) { return !s.empty() && s[0] == c; }

// R-M1 R-M3 R-M7: register, send to agent:reviewer, the reviewer's mailbox shows reply_address, reply via
// --inbox, the worker reads the inbox; reads are non-destructive and an empty page is not a failure.
TEST_F(ExampleSession, RegisterSendReadReplyUnregister_R_M1_R_M3_R_M7) {
  start_server();
  const json reviewer = register_agent(owner(), "reviewer", {"--purpose", "Review PRs", "--provider", "claude"});
  EXPECT_EQ(reviewer.at("agent_name"), "reviewer");
  EXPECT_EQ(reviewer.at("purpose"), "Review PRs");
  EXPECT_EQ(reviewer.at("provider"), "claude");
  EXPECT_FALSE(reviewer.at("agent_id").get<std::string>().empty()) << reviewer.dump();
  register_agent(owner(), "worker");

  const json list = cli_ok(owner(), {"messages", "list"});
  std::vector<std::string> names;
  for (const auto& a : list.at("agents")) names.push_back(a.at("agent_name").get<std::string>());
  EXPECT_NE(std::find(names.begin(), names.end(), "reviewer"), names.end()) << list.dump();
  EXPECT_NE(std::find(names.begin(), names.end(), "worker"), names.end()) << list.dump();

  // R-M1: the receipt says accepted and names the message, conversation and inbox; it is not an answer.
  const json receipt = send_as(owner(), "worker", "agent:reviewer", "Ready for review");
  EXPECT_EQ(receipt.at("accepted"), true) << receipt.dump();
  const std::string message_id = receipt.at("message_id").get<std::string>();
  const std::string inbox_id = receipt.at("inbox_id").get<std::string>();
  const std::string conversation_id = receipt.at("conversation_id").get<std::string>();
  EXPECT_FALSE(message_id.empty());
  EXPECT_FALSE(inbox_id.empty());
  EXPECT_FALSE(conversation_id.empty());
  EXPECT_FALSE(receipt.contains("message")) << "a receipt carries no answer: " << receipt.dump();

  // R-M7: the named mailbox (no inbox id) shows the first contact with its reply_address, in the m-cursor space.
  const json page = cli_ok(owner(), {"messages", "read", "--agent", "reviewer", "--after", "0", "--wait", "25"});
  ASSERT_EQ(page.at("messages").size(), 1u) << page.dump();
  const json& msg = page.at("messages")[0];
  EXPECT_EQ(msg.at("message"), "Ready for review");
  EXPECT_EQ(msg.at("message_id"), message_id);
  EXPECT_EQ(msg.at("reply_address"), inbox_id);
  EXPECT_EQ(msg.at("inbox_id"), inbox_id);
  EXPECT_EQ(msg.at("conversation_id"), conversation_id);
  EXPECT_EQ(msg.at("direction"), "to_agent");
  EXPECT_EQ(msg.at("sender").at("agent_name"), "worker");
  EXPECT_EQ(msg.at("recipient").at("agent_name"), "reviewer");
  EXPECT_EQ(msg.at("delivery").at("state"), "stored");
  EXPECT_TRUE(starts_with(msg.at("cursor").get<std::string>(), 'm')) << msg.dump();
  const std::string mailbox_cursor = page.at("next_cursor").get<std::string>();
  EXPECT_TRUE(starts_with(mailbox_cursor, 'm')) << page.dump();

  // R-M3: reads are non-destructive; reading after next_cursor is an empty page, not a failure.
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"Ready for review"});
  const json empty = read_mailbox(owner(), "reviewer", mailbox_cursor);
  EXPECT_TRUE(empty.at("messages").empty()) << empty.dump();
  EXPECT_EQ(empty.at("next_cursor"), mailbox_cursor);

  // The human form of the mailbox read shows the text and the address to reply to.
  const CliResult human = owner().run({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find("Ready for review"), std::string::npos) << human.describe();
  EXPECT_NE(human.out.find(inbox_id), std::string::npos) << "reply_address not shown:\n" << human.describe();

  // Reply in the same conversation through its inbox.
  const json reply_receipt = reply_in(owner(), "reviewer", inbox_id, "Review received");
  EXPECT_EQ(reply_receipt.at("accepted"), true);
  EXPECT_EQ(reply_receipt.at("inbox_id"), inbox_id);
  EXPECT_EQ(reply_receipt.at("conversation_id"), conversation_id);
  EXPECT_NE(reply_receipt.at("message_id"), message_id);

  // The worker reads the conversation by its inbox (i-cursor space): both messages, oldest first.
  const json inbox = cli_ok(owner(), {"messages", "read", "--inbox", inbox_id, "--after", "0"});
  EXPECT_EQ(texts_of(inbox), (std::vector<std::string>{"Ready for review", "Review received"})) << inbox.dump();
  ASSERT_EQ(inbox.at("messages").size(), 2u);
  EXPECT_EQ(inbox.at("messages")[0].at("cursor"), "i1");
  EXPECT_EQ(inbox.at("messages")[1].at("cursor"), "i2");
  EXPECT_EQ(inbox.at("messages")[1].at("direction"), "to_initiator");
  EXPECT_EQ(inbox.at("messages")[1].at("sender").at("agent_name"), "reviewer");
  EXPECT_EQ(inbox.at("messages")[1].at("recipient").at("agent_name"), "worker");
  EXPECT_EQ(inbox.at("next_cursor"), "i2");
  const json inbox_rest = read_inbox(owner(), inbox_id, "i1");
  EXPECT_EQ(texts_of(inbox_rest), std::vector<std::string>{"Review received"});

  // The worker spoke as a named agent, so the reply is in the worker's named mailbox too.
  EXPECT_EQ(texts_of(read_mailbox(owner(), "worker")), std::vector<std::string>{"Review received"});

  // R-M7: the two cursor spaces are distinct.
  const CliResult mismatch = owner().json({"messages", "read", "--inbox", inbox_id, "--after", mailbox_cursor});
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.describe();
  EXPECT_EQ(mismatch.error_code(), "cursor_mismatch") << mismatch.describe();
  const CliResult mismatch2 = owner().json({"messages", "read", "--agent", "reviewer", "--after", "i1"});
  EXPECT_EQ(mismatch2.exit_code, 2) << mismatch2.describe();
  EXPECT_EQ(mismatch2.error_code(), "cursor_mismatch") << mismatch2.describe();

  const json removed = cli_ok(owner(), {"messages", "unregister", "--agent", "reviewer"});
  EXPECT_EQ(removed.at("removed"), true) << removed.dump();
  const json after = cli_ok(owner(), {"messages", "list"});
  for (const auto& a : after.at("agents")) EXPECT_NE(a.at("agent_name"), "reviewer") << after.dump();
}

// R-M3: --limit bounds a page; next_cursor continues it; the server refuses limit > 100 and wait > 25.
TEST_F(ExampleSession, ReadPagesWithLimitAndBounds_R_M3) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  for (const char* text : {"one", "two", "three"}) send_as(owner(), "worker", "agent:reviewer", text);

  const json first = cli_ok(owner(), {"messages", "read", "--agent", "reviewer", "--after", "0", "--limit", "2"});
  EXPECT_EQ(texts_of(first), (std::vector<std::string>{"one", "two"})) << first.dump();
  const json second = cli_ok(owner(), {"messages", "read", "--agent", "reviewer", "--after",
                                       first.at("next_cursor").get<std::string>(), "--limit", "2"});
  EXPECT_EQ(texts_of(second), std::vector<std::string>{"three"}) << second.dump();

  const HttpResponse too_many = owner_http().get("/v1/messages?agent_name=reviewer&limit=101");
  EXPECT_EQ(too_many.status, 400) << describe(too_many);
  EXPECT_EQ(error_code_of(too_many.body), "bad_request") << describe(too_many);
  const HttpResponse too_long = owner_http().get("/v1/messages?agent_name=reviewer&wait_seconds=26");
  EXPECT_EQ(too_long.status, 400) << describe(too_long);
  EXPECT_EQ(error_code_of(too_long.body), "bad_request") << describe(too_long);
  const HttpResponse zero = owner_http().get("/v1/messages?agent_name=reviewer&limit=0");
  EXPECT_EQ(zero.status, 400) << describe(zero);
}

// The CLI's identity commands: guidance context shows this connection's public id (the id others put in
// allowed_connection_ids); logout forgets the login.
TEST_F(ExampleSession, GuidanceContextAndLogout) {
  start_server();
  const std::string id = owner_connection_id();
  const CliResult context = owner().json({"guidance", "context"});
  ASSERT_EQ(context.exit_code, 0) << context.describe();
  EXPECT_NE(context.out.find(id), std::string::npos) << "connection id " << id << " missing:\n" << context.describe();
  EXPECT_EQ(context.out.find(owner_token()), std::string::npos) << "the bearer token must not be shown";
  const CliResult human = owner().run({"guidance", "context"});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find(id), std::string::npos) << human.describe();

  const CliResult logout = owner().run({"logout"});
  EXPECT_EQ(logout.exit_code, 0) << logout.describe();
  const CliResult after = owner().json({"messages", "list"});
  EXPECT_NE(after.exit_code, 0) << after.describe();
  EXPECT_FALSE(after.error_code().empty()) << "--json errors are an error object on stdout:\n" << after.describe();
}

}  // namespace
}  // namespace agentworks::testing
