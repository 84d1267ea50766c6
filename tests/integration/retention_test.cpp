// Inbox history, eviction and expiry (R-M11, R-M12, R-M13), with small limit flags.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Retention : public MessagingTest {
 protected:
  void set_receipt(const std::string& message_id, const std::string& state) {
    http_json(owner_http(), "POST", "/v1/messages/" + message_id + "/receipt", json{{"delivery", state}}.dump(), 200);
  }
  // Waits until the wall clock has moved `seconds` past `since` (the server's idle clock is in whole seconds).
  static void wait_past(std::time_t since, int seconds) {
    ASSERT_TRUE(wait_until([&] { return std::time(nullptr) >= since + seconds; }, std::chrono::seconds(seconds + 5),
                           std::chrono::milliseconds(50)));
  }
};

// R-M11: at the history limit the oldest message is removed; when it is still pending (live attachment, not
// processed) the send is refused with inbox_full (exit 5) until it is processed.
TEST_F(Retention, InboxHistoryLimit_R_M11) {
  start_server({"--inbox-history", "3"});
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  register_agent(owner(), "busy");

  // No attachment: nothing is pending, the oldest makes room.
  const json first = send_as(owner(), "worker", "agent:reviewer", "m1");
  const std::string inbox = first.at("inbox_id").get<std::string>();
  for (const char* text : {"m2", "m3", "m4"}) send_as(owner(), "worker", "agent:reviewer", text);
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox)), (std::vector<std::string>{"m2", "m3", "m4"}));
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), (std::vector<std::string>{"m2", "m3", "m4"}));

  // A live attachment makes unprocessed messages pending: the full inbox refuses instead of dropping one.
  attach_over_http("busy", "s-busy", "p");
  const json p1 = send_as(owner(), "worker", "agent:busy", "p1");
  const std::string busy_inbox = p1.at("inbox_id").get<std::string>();
  send_as(owner(), "worker", "agent:busy", "p2");
  send_as(owner(), "worker", "agent:busy", "p3");
  const CliResult full = owner().json({"messages", "send", "--agent", "worker", "--target", "agent:busy", "--message", "p4"});
  EXPECT_EQ(full.exit_code, 5) << full.describe();
  EXPECT_EQ(full.error_code(), "inbox_full") << full.describe();
  EXPECT_EQ(texts_of(read_inbox(owner(), busy_inbox)), (std::vector<std::string>{"p1", "p2", "p3"}));

  // Admitted is still pending; processed is not.
  set_receipt(p1.at("message_id").get<std::string>(), "admitted");
  const CliResult still_full =
      owner().json({"messages", "send", "--agent", "worker", "--target", "agent:busy", "--message", "p4"});
  EXPECT_EQ(still_full.exit_code, 5) << still_full.describe();
  set_receipt(p1.at("message_id").get<std::string>(), "processed");
  send_as(owner(), "worker", "agent:busy", "p4");
  EXPECT_EQ(texts_of(read_inbox(owner(), busy_inbox)), (std::vector<std::string>{"p2", "p3", "p4"}));
}

// R-M12 R-M13: at the per-account inbox cap a new conversation evicts the oldest idle inbox; the evicted inbox
// answers expired (exit 4, no bodies) to its account and not_found to others; pending messages protect inboxes.
TEST_F(Retention, InboxCapEvictsOldestIdle_R_M12_R_M13) {
  start_server({"--max-inboxes-per-account", "2"});
  for (const char* name : {"worker", "a", "b", "c", "d"}) register_agent(owner(), name);
  const std::string inbox_a = send_as(owner(), "worker", "agent:a", "to a").at("inbox_id").get<std::string>();
  const std::string inbox_b = send_as(owner(), "worker", "agent:b", "to b").at("inbox_id").get<std::string>();
  const std::string inbox_c = send_as(owner(), "worker", "agent:c", "to c").at("inbox_id").get<std::string>();

  const CliResult expired = owner().json({"messages", "read", "--inbox", inbox_a, "--after", "0"});
  EXPECT_EQ(expired.exit_code, 4) << expired.describe();
  EXPECT_EQ(expired.error_code(), "expired") << expired.describe();
  EXPECT_EQ(expired.out.find("to a"), std::string::npos) << "an expired inbox shows no bodies";
  const HttpResponse wire = owner_http().get("/v1/messages?inbox_id=" + inbox_a);
  EXPECT_EQ(wire.status, 410) << describe(wire);
  EXPECT_EQ(error_code_of(wire.body), "expired") << describe(wire);
  EXPECT_EQ(wire.body.find("to a"), std::string::npos);
  const CliResult reply = owner().json({"messages", "send", "--agent", "a", "--inbox", inbox_a, "--message", "late"});
  EXPECT_EQ(reply.exit_code, 4) << reply.describe();
  EXPECT_EQ(reply.error_code(), "expired") << reply.describe();
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox_b)), std::vector<std::string>{"to b"});
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox_c)), std::vector<std::string>{"to c"});

  // R-M13: unauthorised callers get the plain unavailable answer.
  Identity other = add_account("other");
  const CliResult other_read = other.cli.json({"messages", "read", "--inbox", inbox_a, "--after", "0"});
  EXPECT_EQ(other_read.exit_code, 4) << other_read.describe();
  EXPECT_EQ(other_read.error_code(), "not_found") << other_read.describe();

  // Sending to agent:a again starts a new conversation (the old one expired).
  const std::string inbox_a2 = send_as(owner(), "worker", "agent:a", "to a again").at("inbox_id").get<std::string>();
  EXPECT_NE(inbox_a2, inbox_a);

  // Pending messages protect inboxes: with every inbox pending, a new conversation is limit_reached.
  const json att_a = http_json(owner_http(), "POST", "/v1/attachments",
                               json{{"agent_name", "a"}, {"purpose", "p"}, {"provider", "claude"}, {"native_session_id", "s-a"}}.dump(), 201);
  const json att_c = http_json(owner_http(), "POST", "/v1/attachments",
                               json{{"agent_name", "c"}, {"purpose", "p"}, {"provider", "claude"}, {"native_session_id", "s-c"}}.dump(), 201);
  send_as(owner(), "worker", "agent:a", "pending a");
  send_as(owner(), "worker", "agent:c", "pending c");
  const CliResult capped = owner().json({"messages", "send", "--agent", "worker", "--target", "agent:d", "--message", "to d"});
  EXPECT_EQ(capped.exit_code, 5) << capped.describe();
  EXPECT_EQ(capped.error_code(), "limit_reached") << capped.describe();
  EXPECT_TRUE(read_mailbox(owner(), "d").at("messages").empty());
  EXPECT_EQ(texts_of(read_inbox(owner(), inbox_c)), (std::vector<std::string>{"to c", "pending c"}));
}

// R-M12 R-M13: an inbox idle longer than --inbox-idle-seconds is removed when a new conversation starts; it
// answers expired, and after --expired-retention-seconds more it answers not_found.
TEST_F(Retention, IdleInboxExpiresThenIsForgotten_R_M12_R_M13) {
  start_server({"--inbox-idle-seconds", "1", "--expired-retention-seconds", "3"});
  for (const char* name : {"worker", "a", "b"}) register_agent(owner(), name);
  const std::time_t sent_at = std::time(nullptr);
  const std::string inbox_a = send_as(owner(), "worker", "agent:a", "to a").at("inbox_id").get<std::string>();
  wait_past(sent_at, 3);
  const std::time_t swept_at = std::time(nullptr);
  send_as(owner(), "worker", "agent:b", "to b");  // a new conversation sweeps idle inboxes first

  const CliResult expired = owner().json({"messages", "read", "--inbox", inbox_a, "--after", "0"});
  EXPECT_EQ(expired.exit_code, 4) << expired.describe();
  EXPECT_EQ(expired.error_code(), "expired") << expired.describe();

  wait_past(swept_at, 5);
  const CliResult forgotten = owner().json({"messages", "read", "--inbox", inbox_a, "--after", "0"});
  EXPECT_EQ(forgotten.exit_code, 4) << forgotten.describe();
  EXPECT_EQ(forgotten.error_code(), "not_found") << forgotten.describe();
}

}  // namespace
}  // namespace agentworks::testing
