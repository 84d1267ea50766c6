// Who may act for a name: the allow-list (R-M6), child connections (R-B19) and revocation (R-M15, R-B20).
#include <gtest/gtest.h>

#include "testing/sse_client.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class Connections : public MessagingTest {};

bool contains(const json& array, const std::string& value) {
  for (const auto& v : array) {
    if (v == value) return true;
  }
  return false;
}

// R-M6: the creating connection is always allowed; --allow-connection accepts only live connections of the same
// account; a re-register without the option keeps the list; every read/send as a name checks it.
TEST_F(Connections, AllowList_R_M6) {
  start_server();
  const std::string owner_id = owner_connection_id();
  const json reviewer = register_agent(owner(), "reviewer");
  EXPECT_TRUE(contains(reviewer.at("allowed_connection_ids"), owner_id)) << reviewer.dump();
  register_agent(owner(), "worker");
  Identity laptop = create_login(owner_token(), "laptop");  // a second login connection of the same account

  // Not in the reviewer's list: the second login may neither read nor speak as the reviewer, nor re-register it.
  const CliResult read = laptop.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(read.exit_code, 3) << read.describe();
  EXPECT_EQ(read.error_code(), "forbidden") << read.describe();
  const CliResult send_as_reviewer = laptop.cli.json(
      {"messages", "send", "--agent", "reviewer", "--target", "agent:worker", "--message", "impersonation"});
  EXPECT_EQ(send_as_reviewer.exit_code, 3) << send_as_reviewer.describe();
  EXPECT_EQ(send_as_reviewer.error_code(), "forbidden") << send_as_reviewer.describe();
  const CliResult takeover = laptop.cli.json({"messages", "register", "--agent", "reviewer"});
  EXPECT_EQ(takeover.exit_code, 3) << takeover.describe();
  EXPECT_EQ(takeover.error_code(), "forbidden") << takeover.describe();
  const CliResult unregister = laptop.cli.json({"messages", "unregister", "--agent", "reviewer"});
  EXPECT_EQ(unregister.exit_code, 3) << unregister.describe();
  // It may still send to the reviewer as itself or as its own agent (the list guards speaking as the name).
  register_agent(laptop.cli, "laptop-agent");
  send_as(laptop.cli, "laptop-agent", "agent:reviewer", "from the laptop");

  // Ids that are not live connections of this account are refused (bad_request, exit 2) and change nothing.
  Identity other = add_account("other");
  Identity revoked_login = create_login(owner_token(), "revoked");
  http_json(owner_http(), "DELETE", "/v1/connections/" + revoked_login.connection_id, std::nullopt, 200);
  for (const std::string& bad_id : {other.connection_id, std::string("conn_does_not_exist"), revoked_login.connection_id}) {
    const CliResult r = owner().json({"messages", "register", "--agent", "reviewer", "--allow-connection", bad_id});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.error_code(), "bad_request") << r.describe();
  }
  EXPECT_EQ(laptop.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"}).exit_code, 3);

  // A live same-account connection is added; the caller stays in the list.
  const json allowed = register_agent(owner(), "reviewer", {"--allow-connection", laptop.connection_id});
  EXPECT_TRUE(contains(allowed.at("allowed_connection_ids"), laptop.connection_id)) << allowed.dump();
  EXPECT_TRUE(contains(allowed.at("allowed_connection_ids"), owner_id)) << allowed.dump();
  EXPECT_EQ(allowed.at("agent_id"), reviewer.at("agent_id"));
  EXPECT_EQ(texts_of(read_mailbox(laptop.cli, "reviewer")), std::vector<std::string>{"from the laptop"});
  send_as(laptop.cli, "reviewer", "agent:worker", "reviewer speaking from the laptop");

  // Re-register without the option keeps the list (also when the newly allowed connection re-registers).
  const json kept = register_agent(owner(), "reviewer", {"--purpose", "still reviewing"});
  EXPECT_TRUE(contains(kept.at("allowed_connection_ids"), laptop.connection_id)) << kept.dump();
  EXPECT_EQ(kept.at("purpose"), "still reviewing");
  const json kept2 = register_agent(laptop.cli, "reviewer");
  EXPECT_TRUE(contains(kept2.at("allowed_connection_ids"), owner_id)) << kept2.dump();
  EXPECT_TRUE(contains(kept2.at("allowed_connection_ids"), laptop.connection_id)) << kept2.dump();
  EXPECT_EQ(read_mailbox(laptop.cli, "reviewer").at("messages").size(), 1u);

  // Replacing the list drops the laptop again.
  const json replaced = register_agent(owner(), "reviewer", {"--allow-connection", owner_id});
  EXPECT_FALSE(contains(replaced.at("allowed_connection_ids"), laptop.connection_id)) << replaced.dump();
  const CliResult dropped = laptop.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(dropped.exit_code, 3) << dropped.describe();

  // R-B19: a child acts only as its own agent, even when listed for another name; the list is not shown to it.
  Identity worker_child = create_child(owner_token(), "worker");
  register_agent(owner(), "reviewer", {"--allow-connection", worker_child.connection_id});
  const CliResult still = worker_child.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(still.exit_code, 3) << still.describe();
  const json seen_by_child = http_json(worker_child.http, "GET", "/v1/agents/reviewer", std::nullopt, 200);
  EXPECT_FALSE(seen_by_child.contains("allowed_connection_ids") &&
               !seen_by_child.at("allowed_connection_ids").empty())
      << seen_by_child.dump();
}

// A second login connection is independent of the first: revoking the first does not revoke it.
TEST_F(Connections, SecondLoginSurvivesRevokingTheFirst) {
  start_server();
  Identity other = add_account("other");
  Identity laptop = create_login(other.token, "laptop");
  const json whoami = http_json(laptop.http, "GET", "/v1/whoami", std::nullopt, 200);
  EXPECT_EQ(whoami.at("kind"), "login");
  http_json(other.http, "DELETE", "/v1/connections/" + other.connection_id, std::nullopt, 200);
  EXPECT_EQ(other.http.get("/v1/whoami").status, 401);
  EXPECT_EQ(laptop.http.get("/v1/whoami").status, 200);
  EXPECT_EQ(cli_ok(laptop.cli, {"messages", "list"}).at("agents").size(), 0u);
}

// R-B21 (server part): a new child created with supersede_siblings revokes the parent's other children of the same
// agent, and only those.
TEST_F(Connections, NewChildSupersedesSiblings_R_B21) {
  start_server();
  register_agent(owner(), "worker");
  register_agent(owner(), "reviewer");
  Identity old_child = create_child(owner_token(), "worker");
  Identity reviewer_child = create_child(owner_token(), "reviewer");
  const json created = http_json(owner_http(), "POST", "/v1/connections",
                                 json{{"agent_name", "worker"}, {"supersede_siblings", true}}.dump(), 0);
  const HttpClient new_child(server_->url(), created.at("token").get<std::string>());
  EXPECT_EQ(new_child.get("/v1/whoami").status, 200);
  EXPECT_EQ(old_child.http.get("/v1/whoami").status, 401) << "the abandoned sibling still authenticates";
  EXPECT_EQ(reviewer_child.http.get("/v1/whoami").status, 200) << "a child of another agent was revoked";
  EXPECT_EQ(owner_http().get("/v1/whoami").status, 200);
}

// R-B19: a child connection is messaging-only and bound to its agent: it sends and reads as that agent, and cannot
// register, unregister, create connections or act as another name.
TEST_F(Connections, ChildConnectionActsOnlyAsItsAgent_R_B19) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  Identity worker = create_child(owner_token(), "worker");
  Identity reviewer = create_child(owner_token(), "reviewer");

  const json whoami = http_json(worker.http, "GET", "/v1/whoami", std::nullopt, 200);
  EXPECT_EQ(whoami.at("kind"), "child");
  EXPECT_EQ(whoami.at("agent_name"), "worker");

  // Sends as its agent without naming it.
  const json receipt = cli_ok(worker.cli, {"messages", "send", "--target", "agent:reviewer", "--message", "from child"});
  const json page = read_mailbox(reviewer.cli, "reviewer");
  ASSERT_EQ(page.at("messages").size(), 1u) << page.dump();
  EXPECT_EQ(page.at("messages")[0].at("sender").at("agent_name"), "worker");
  EXPECT_EQ(page.at("messages")[0].at("sender").at("connection_id"), worker.connection_id);
  reply_in(reviewer.cli, "reviewer", receipt.at("inbox_id").get<std::string>(), "reply to child");
  EXPECT_EQ(texts_of(read_mailbox(worker.cli, "worker")), std::vector<std::string>{"reply to child"});
  EXPECT_EQ(texts_of(read_inbox(worker.cli, receipt.at("inbox_id").get<std::string>())),
            (std::vector<std::string>{"from child", "reply to child"}));

  const CliResult reg = worker.cli.json({"messages", "register", "--agent", "newname"});
  EXPECT_EQ(reg.exit_code, 3) << reg.describe();
  EXPECT_EQ(reg.error_code(), "forbidden") << reg.describe();
  const CliResult reg_own = worker.cli.json({"messages", "register", "--agent", "worker"});
  EXPECT_EQ(reg_own.exit_code, 3) << reg_own.describe();
  const CliResult unreg = worker.cli.json({"messages", "unregister", "--agent", "worker"});
  EXPECT_EQ(unreg.exit_code, 3) << unreg.describe();
  EXPECT_EQ(unreg.error_code(), "forbidden") << unreg.describe();
  const HttpResponse conn = worker.http.post("/v1/connections", json{{"agent_name", "worker"}}.dump());
  EXPECT_EQ(conn.status, 403) << describe(conn);
  EXPECT_EQ(error_code_of(conn.body), "forbidden") << describe(conn);
  const CliResult other_mailbox = worker.cli.json({"messages", "read", "--agent", "reviewer", "--after", "0"});
  EXPECT_EQ(other_mailbox.exit_code, 3) << other_mailbox.describe();
  const CliResult speak_as_other =
      worker.cli.json({"messages", "send", "--agent", "reviewer", "--target", "agent:worker", "--message", "x"});
  EXPECT_EQ(speak_as_other.exit_code, 3) << speak_as_other.describe();
  EXPECT_EQ(texts_of(read_mailbox(owner(), "reviewer")), std::vector<std::string>{"from child"});
}

// R-M15 R-B20: a revoked connection is refused at once; a message it queued is no longer releasable; revoking a
// login connection revokes its children and ends their streams.
TEST_F(Connections, RevokedConnectionIsRefused_R_M15_R_B20) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  Identity worker = create_child(owner_token(), "worker");
  const json receipt = cli_ok(worker.cli, {"messages", "send", "--target", "agent:reviewer", "--message", "queued"});
  const std::string message_id = receipt.at("message_id").get<std::string>();

  const json revoked = http_json(owner_http(), "DELETE", "/v1/connections/" + worker.connection_id, std::nullopt, 200);
  EXPECT_EQ(revoked.at("revoked"), true) << revoked.dump();
  const HttpResponse who = worker.http.get("/v1/whoami");
  EXPECT_EQ(who.status, 401) << describe(who);
  EXPECT_EQ(error_code_of(who.body), "unauthenticated") << describe(who);
  const CliResult send = worker.cli.json({"messages", "send", "--target", "agent:reviewer", "--message", "after revoke"});
  EXPECT_EQ(send.exit_code, 3) << send.describe();
  EXPECT_EQ(send.error_code(), "unauthenticated") << send.describe();

  // R-M15: the message it queued cannot start a delivery.
  const json attachment = http_json(owner_http(), "POST", "/v1/attachments",
                                    json{{"agent_name", "reviewer"}, {"purpose", "Review"}, {"provider", "claude"},
                                         {"native_session_id", "session-1"}}
                                        .dump(),
                                    201);
  const json check = http_json(owner_http(), "POST",
                               "/v1/attachments/" + attachment.at("attachment_id").get<std::string>() + "/release-check",
                               json{{"message_ids", {message_id}}}.dump(), 200);
  ASSERT_EQ(check.at("messages").size(), 1u) << check.dump();
  EXPECT_EQ(check.at("messages")[0].at("releasable"), false) << check.dump();
  EXPECT_EQ(check.at("messages")[0].at("reason"), "sender_unauthorised") << check.dump();

  // R-B20: revoking a login connection revokes its children and closes their streams.
  Identity other = add_account("other");
  register_agent(other.cli, "helper");
  Identity helper = create_child(other.token, "helper");
  const json helper_attachment = http_json(helper.http, "POST", "/v1/attachments",
                                           json{{"agent_name", "helper"}, {"purpose", "Help"}, {"provider", "codex"},
                                                {"native_session_id", "session-2"}}
                                               .dump(),
                                           201);
  SseStream stream(server_->url(),
                   "/v1/attachments/" + helper_attachment.at("attachment_id").get<std::string>() + "/stream",
                   helper.token);
  ASSERT_EQ(stream.status(), 200) << stream.error_body();
  ASSERT_TRUE(stream.next_event_named("ready").has_value());

  const json parent_revoked =
      http_json(other.http, "DELETE", "/v1/connections/" + other.connection_id, std::nullopt, 200);
  EXPECT_EQ(parent_revoked.at("revoked_children"), 1) << parent_revoked.dump();
  EXPECT_TRUE(stream.wait_closed(std::chrono::seconds(10))) << "the child's stream stayed open after the revoke";
  for (const auto& ev : stream.skipped()) EXPECT_NE(ev.event, "message") << ev.data;
  const HttpResponse child_who = helper.http.get("/v1/whoami");
  EXPECT_EQ(child_who.status, 401) << describe(child_who);
  const HttpResponse parent_who = other.http.get("/v1/whoami");
  EXPECT_EQ(parent_who.status, 401) << describe(parent_who);
  const CliResult child_cli = helper.cli.json({"messages", "list"});
  EXPECT_EQ(child_cli.exit_code, 3) << child_cli.describe();
  // The owner's account is untouched.
  EXPECT_EQ(owner_http().get("/v1/whoami").status, 200);
}

}  // namespace
}  // namespace agentworks::testing
