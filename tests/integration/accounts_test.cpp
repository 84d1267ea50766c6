// Accounts are separate address spaces (R-M9), and each CLI config is a separate login (R-H13).
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Accounts : public MessagingTest {};

// R-M9: addresses route only within one account; another account's names and inboxes answer not_found.
TEST_F(Accounts, TwoAccountsAreKeptApart_R_M9) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const json receipt = send_as(owner(), "worker", "agent:reviewer", "owner-only");
  const std::string owner_inbox = receipt.at("inbox_id").get<std::string>();

  Identity other = add_account("other");
  register_agent(other.cli, "helper");

  // The other account does not see the owner's agents.
  const json list = cli_ok(other.cli, {"messages", "list"});
  for (const auto& a : list.at("agents")) EXPECT_NE(a.at("agent_name"), "reviewer") << list.dump();

  // Sending to the owner's agent name or inbox, or reading them, is not_found (exit 4) and stores nothing.
  const CliResult to_name =
      other.cli.json({"messages", "send", "--agent", "helper", "--target", "agent:reviewer", "--message", "hi"});
  EXPECT_EQ(to_name.exit_code, 4) << to_name.describe();
  EXPECT_EQ(to_name.error_code(), "not_found") << to_name.describe();
  const CliResult to_inbox =
      other.cli.json({"messages", "send", "--agent", "helper", "--inbox", owner_inbox, "--message", "hi"});
  EXPECT_EQ(to_inbox.exit_code, 4) << to_inbox.describe();
  EXPECT_EQ(to_inbox.error_code(), "not_found") << to_inbox.describe();
  const CliResult no_name_to_inbox = other.cli.json({"messages", "send", "--inbox", owner_inbox, "--message", "hi"});
  EXPECT_EQ(no_name_to_inbox.exit_code, 4) << no_name_to_inbox.describe();
  const CliResult read_inbox_other = other.cli.json({"messages", "read", "--inbox", owner_inbox, "--after", "0"});
  EXPECT_EQ(read_inbox_other.exit_code, 4) << read_inbox_other.describe();
  EXPECT_EQ(read_inbox_other.error_code(), "not_found") << read_inbox_other.describe();
  const CliResult read_mailbox_other = other.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(read_mailbox_other.exit_code, 4) << read_mailbox_other.describe();
  EXPECT_EQ(read_mailbox_other.error_code(), "not_found") << read_mailbox_other.describe();
  const HttpResponse get_agent = other.http.get("/v1/agents/reviewer");
  EXPECT_EQ(get_agent.status, 404) << describe(get_agent);
  const HttpResponse get_inbox = other.http.get("/v1/inboxes/" + owner_inbox);
  EXPECT_EQ(get_inbox.status, 404) << describe(get_inbox);
  const HttpResponse receipt_other = other.http.get("/v1/messages/" + receipt.at("message_id").get<std::string>() + "/receipt");
  EXPECT_EQ(receipt_other.status, 404) << describe(receipt_other);

  // The same name in the other account is a different agent; the owner's sends stay in the owner's account.
  const json other_reviewer = register_agent(other.cli, "reviewer");
  const json owner_reviewer = http_json(owner_http(), "GET", "/v1/agents/reviewer", std::nullopt, 200);
  EXPECT_NE(other_reviewer.at("agent_id"), owner_reviewer.at("agent_id"));
  send_as(owner(), "worker", "agent:reviewer", "second owner message");
  EXPECT_TRUE(read_mailbox(other.cli, "reviewer").at("messages").empty());
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")),
            (std::vector<std::string>{"owner-only", "second owner message"}));
}

// R-H13 (CLI part): AGENTWORKS_CONFIG and --config select separate logins; the default config is untouched.
TEST_F(Accounts, ConfigFileSelectsTheLogin_R_H13) {
  start_server();
  register_agent(owner(), "owner-agent");
  Identity other = add_account("second");  // logged in through AGENTWORKS_CONFIG=<temp>/account-second.json
  register_agent(other.cli, "second-agent");

  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const auto& a : list.at("agents")) out.push_back(a.at("agent_name").get<std::string>());
    return out;
  };
  EXPECT_EQ(names(cli_ok(owner(), {"messages", "list"})), std::vector<std::string>{"owner-agent"});
  EXPECT_EQ(names(cli_ok(other.cli, {"messages", "list"})), std::vector<std::string>{"second-agent"});

  // --config PATH picks the same login as AGENTWORKS_CONFIG=PATH.
  const std::string path = home_.path("account-second.json").string();
  const CliResult via_flag = owner().json({"messages", "list", "--config", path});
  ASSERT_EQ(via_flag.exit_code, 0) << via_flag.describe();
  EXPECT_EQ(names(via_flag.json()), std::vector<std::string>{"second-agent"});
  const CliResult flag_first = owner().json({"--config", path, "messages", "list"});
  ASSERT_EQ(flag_first.exit_code, 0) << flag_first.describe();
  EXPECT_EQ(names(flag_first.json()), std::vector<std::string>{"second-agent"});
}

}  // namespace
}  // namespace agentworks::testing
