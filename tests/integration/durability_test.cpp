// Durability and waiting: a crash (kill -9) and restart keeps everything (R-M1 "durably stored", R-M2, R-M5
// "names persist"); a long poll returns when a message arrives (R-M3).
#include <gtest/gtest.h>

#include "testing/net_probe.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Durability : public MessagingTest {};

// R-M1 R-M2 R-M5: after kill -9 and a restart on the same data directory, agents, messages, receipts states,
// cursors and submission ids are all still there, and the conversation continues.
TEST_F(Durability, ServerCrashAndRestartKeepsState_R_M1_R_M2_R_M5) {
  start_server();
  const json reviewer = register_agent(owner(), "reviewer", {"--purpose", "Review PRs"});
  register_agent(owner(), "worker");
  const json r1 = send_as(owner(), "worker", "agent:reviewer", "before crash 1", {"--submission-id", "crash-1"});
  const std::string inbox = r1.at("inbox_id").get<std::string>();
  reply_in(owner(), "reviewer", inbox, "reply before crash");
  http_json(owner_http(), "POST", "/v1/messages/" + r1.at("message_id").get<std::string>() + "/receipt",
            json{{"delivery", "admitted"}}.dump(), 200);
  const json before = read_mailbox(owner(), "reviewer");
  const std::string cursor = before.at("next_cursor").get<std::string>();

  server_->restart();  // SIGKILL, then the same data directory on a new port
  const CliResult relogin = owner().login(server_->url(), owner_token());
  ASSERT_EQ(relogin.exit_code, 0) << relogin.describe();
  const HttpClient http(server_->url(), owner_token());

  const json agent = http_json(http, "GET", "/v1/agents/reviewer", std::nullopt, 200);
  EXPECT_EQ(agent.at("agent_id"), reviewer.at("agent_id"));
  EXPECT_EQ(agent.at("purpose"), "Review PRs");
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"before crash 1"});
  EXPECT_EQ(read_mailbox(owner(), "reviewer").at("messages")[0].at("delivery").at("state"), "admitted");
  EXPECT_TRUE(read_mailbox(owner(), "reviewer", cursor).at("messages").empty()) << "the old cursor moved";
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox)), (std::vector<std::string>{"before crash 1", "reply before crash"}));

  // The submission id survived: a retry returns the original receipt.
  const json retry = send_as(owner(), "worker", "agent:reviewer", "before crash 1", {"--submission-id", "crash-1"});
  EXPECT_EQ(retry.at("message_id"), r1.at("message_id"));

  // The conversation continues with later cursors.
  const json r2 = send_as(owner(), "worker", "agent:reviewer", "after restart");
  EXPECT_EQ(r2.at("inbox_id"), inbox);
  const json after = read_mailbox(owner(), "reviewer", cursor);
  EXPECT_EQ(texts_of(after), std::vector<std::string>{"after restart"});
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox, "i2")), std::vector<std::string>{"after restart"});
}

// R-M3: `messages read --wait 25` blocks until a message arrives and returns it.
TEST_F(Durability, LongPollReturnsTheArrivingMessage_R_M3) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const std::string cursor = read_mailbox(owner(), "reviewer").at("next_cursor").get<std::string>();

  Child reader = owner().start({"messages", "read", "--agent", "reviewer", "--after", cursor, "--wait", "25", "--json"},
                               home_.root(), "long-poll");
  // Send only once the reader is connected to the server (so the message arrives during its wait).
  ASSERT_TRUE(wait_until([&] { return has_tcp_connection_to(reader.pid(), server_->port()) || !reader.running(); }))
      << "the reader never connected";
  ASSERT_TRUE(reader.running()) << "the read returned before any message was sent: " << reader.read_stdout();
  send_as(owner(), "worker", "agent:reviewer", "wake up");

  const auto exit_code = reader.wait_exit(std::chrono::seconds(40));
  ASSERT_TRUE(exit_code.has_value()) << "the long poll never returned";
  EXPECT_EQ(*exit_code, 0) << reader.read_stdout() << reader.read_stderr();
  const json page = parse_json(reader.read_stdout());
  EXPECT_EQ(texts_of(page), std::vector<std::string>{"wake up"}) << page.dump();

  // The same on the wire, for an inbox read (i-cursor space).
  const json first = read_mailbox(owner(), "reviewer");
  const std::string inbox = first.at("messages")[0].at("inbox_id").get<std::string>();
  Child inbox_reader = owner().start({"messages", "read", "--inbox", inbox, "--after", "i1", "--wait", "25", "--json"},
                                     home_.root(), "long-poll-inbox");
  ASSERT_TRUE(wait_until([&] { return has_tcp_connection_to(inbox_reader.pid(), server_->port()) || !inbox_reader.running(); }));
  ASSERT_TRUE(inbox_reader.running()) << inbox_reader.read_stdout();
  reply_in(owner(), "reviewer", inbox, "awake");
  ASSERT_TRUE(inbox_reader.wait_exit(std::chrono::seconds(40)).has_value());
  EXPECT_EQ(texts_of(parse_json(inbox_reader.read_stdout())), std::vector<std::string>{"awake"});
}

}  // namespace
}  // namespace agentworks::testing
