// Agent names: the rules (R-M4), the caps (R-M5) and what unregistering means (R-M8).
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Names : public MessagingTest {};

// R-M4: ASCII letters, digits, '.', '_', '-'; starts with a letter or digit; 1-64 characters; case-insensitive.
TEST_F(Names, NameRules_R_M4) {
  start_server();
  for (const std::string& good : {std::string("a"), std::string("7"), std::string("Worker.2_b-c"), repeat("n", 64)}) {
    const CliResult r = owner().json({"messages", "register", "--agent", good});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
  }
  for (const std::string& bad : {repeat("n", 65), std::string("-lead"), std::string(".lead"), std::string("_lead"),
                                 std::string("has space"), std::string("sl/ash"), std::string("caf\xC3\xA9"),
                                 std::string("at@sign"), std::string("colon:name")}) {
    const CliResult r = owner().json({"messages", "register", "--agent", bad});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.error_code(), "invalid_name") << r.describe();
    const HttpResponse h = owner_http().post("/v1/agents", json{{"agent_name", bad}}.dump());
    EXPECT_EQ(h.status, 400) << describe(h);
    EXPECT_EQ(error_code_of(h.body), "invalid_name") << describe(h);
  }
  const CliResult empty = owner().json({"messages", "register", "--agent", ""});
  EXPECT_EQ(empty.exit_code, 2) << empty.describe();
  const HttpResponse empty_wire = owner_http().post("/v1/agents", json{{"agent_name", ""}}.dump());
  EXPECT_EQ(empty_wire.status, 400) << describe(empty_wire);
  EXPECT_EQ(error_code_of(empty_wire.body), "invalid_name") << describe(empty_wire);

  // Case-insensitive: "REVIEWER" re-registers "Reviewer"; the first spelling is kept for display.
  const json first = register_agent(owner(), "Reviewer");
  const HttpResponse again = owner_http().post("/v1/agents", json{{"agent_name", "REVIEWER"}}.dump());
  EXPECT_EQ(again.status, 200) << describe(again);
  const json again_agent = parse_json(again.body);
  EXPECT_EQ(again_agent.at("agent_id"), first.at("agent_id"));
  EXPECT_EQ(again_agent.at("agent_name"), "Reviewer");
  register_agent(owner(), "worker");
  send_as(owner(), "worker", "agent:rEvIeWeR", "case does not matter");
  EXPECT_EQ(texts_of(read_mailbox(owner(), "REVIEWER")), std::vector<std::string>{"case does not matter"});
  const json list = cli_ok(owner(), {"messages", "list"});
  int reviewers = 0;
  for (const auto& a : list.at("agents")) {
    if (a.at("agent_id") == first.at("agent_id")) {
      ++reviewers;
      EXPECT_EQ(a.at("agent_name"), "Reviewer");
    }
  }
  EXPECT_EQ(reviewers, 1) << list.dump();
}

// R-M5: registrations per account and per server are capped (limit_reached, exit 5); re-registering an existing
// name is not a new registration; unregistering frees a place.
TEST_F(Names, RegistrationCaps_R_M5) {
  start_server({"--max-agents-per-account", "3", "--max-agents-total", "4"});
  for (const char* name : {"a1", "a2", "a3"}) register_agent(owner(), name);
  const CliResult fourth = owner().json({"messages", "register", "--agent", "a4"});
  EXPECT_EQ(fourth.exit_code, 5) << fourth.describe();
  EXPECT_EQ(fourth.error_code(), "limit_reached") << fourth.describe();
  register_agent(owner(), "a2", {"--purpose", "re-registered"});  // not a new registration

  // Server-wide cap: the other account gets one (4 in all), then limit_reached.
  Identity other = add_account("other");
  register_agent(other.cli, "b1");
  const CliResult fifth = other.cli.json({"messages", "register", "--agent", "b2"});
  EXPECT_EQ(fifth.exit_code, 5) << fifth.describe();
  EXPECT_EQ(fifth.error_code(), "limit_reached") << fifth.describe();

  cli_ok(owner(), {"messages", "unregister", "--agent", "a1"});
  register_agent(other.cli, "b2");
  const CliResult owner_again = owner().json({"messages", "register", "--agent", "a4"});
  EXPECT_EQ(owner_again.exit_code, 5) << owner_again.describe();  // the server is full again
  EXPECT_EQ(cli_ok(owner(), {"messages", "list"}).at("agents").size(), 2u);
}

// R-M8: unregister then register the same name: a new agent_id; the old conversation cannot reach the new agent.
TEST_F(Names, RecreatedNameIsANewIdentity_R_M8) {
  start_server();
  const json old_agent = register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json receipt = send_as(owner(), "worker", "agent:reviewer", "to the old reviewer");
  const std::string old_inbox = receipt.at("inbox_id").get<std::string>();

  cli_ok(owner(), {"messages", "unregister", "--agent", "reviewer"});
  const CliResult gone = owner().json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(gone.exit_code, 4) << gone.describe();
  EXPECT_EQ(gone.error_code(), "not_found") << gone.describe();

  const json new_agent = register_agent(owner(), "reviewer");
  EXPECT_NE(new_agent.at("agent_id"), old_agent.at("agent_id"));
  EXPECT_TRUE(read_mailbox(owner(), "reviewer").at("messages").empty()) << "old messages leaked to the new identity";

  // The old inbox does not redirect to the new identity: as the worker, and as the new reviewer.
  const CliResult via_old =
      owner().json({"messages", "send", "--agent", "worker", "--inbox", old_inbox, "--message", "still there?"});
  EXPECT_NE(via_old.exit_code, 0) << via_old.describe();
  const CliResult new_replies =
      owner().json({"messages", "send", "--agent", "reviewer", "--inbox", old_inbox, "--message", "I am new"});
  EXPECT_NE(new_replies.exit_code, 0) << new_replies.describe();
  EXPECT_TRUE(read_mailbox(owner(), "reviewer").at("messages").empty());
  EXPECT_TRUE(read_mailbox(owner(), "worker").at("messages").empty());

  // A send to the name starts a new conversation with the new identity.
  const json fresh = send_as(owner(), "worker", "agent:reviewer", "hello new reviewer");
  EXPECT_NE(fresh.at("inbox_id"), old_inbox);
  EXPECT_NE(fresh.at("conversation_id"), receipt.at("conversation_id"));
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"hello new reviewer"});
}

}  // namespace
}  // namespace agentworks::testing
