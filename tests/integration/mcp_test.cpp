// `agentworks mcp serve` and `agentworks bridge message …` against a real agentworks-server and agentworks-bridge
// in a temp HOME, driven by a real MCP client (npm @modelcontextprotocol/sdk, tests/mcp/driver.mjs).
// R-C1 (credential-less tools as the attached identity), R-C2 (unattached: refused, never the CLI login),
// R-C5 (reply keeps the conversation), R-C6 (bound to the exact provider process), R-C7 (bridge message for the
// exact attached session, cannot attach), R-C8 (Codex routes by the host's thread id), R-B13 (retired ids need
// the inbox), R-C9 (reads are filtered by the release check).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <set>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "testing/binaries.hpp"
#include "support/crew_folder.hpp"
#include "support/mcp_driver.hpp"
#include "support/bridge_fixture.hpp"
#include "testing/process_key.hpp"

namespace agentworks::testing {
namespace {
class McpTest : public BridgeTest {
 protected:
  void SetUp() override {
    const auto missing = mcp_client_missing();
    ASSERT_TRUE(missing.empty()) << missing;
    start_server();
    register_agent(owner(), "worker", {"--purpose", "Builds things"});
    start_bridge();
  }
  void TearDown() override {
    for (auto& d : drivers_) {
      if (HasFailure()) std::cerr << "=== MCP driver stderr ===\n" << d->stderr_text() << "\n";
    }
    drivers_.clear();
    BridgeTest::TearDown();
  }

  // Attaches (provider, session) under `agent` for the provider process `key` (what the hook's `command` op
  // does when the person types /agentworks attach in that chat).
  json attach(const std::string& provider, const std::string& session, const std::string& agent, const json& key) {
    const json a = call({{"op", "attach"}, {"provider", provider}, {"session_id", session}, {"agent_name", agent},
                         {"purpose", "Reviews work for " + agent}, {"process", key}});
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    return a;
  }

  // A node "agent CLI" running `agentworks mcp serve ARGS` as its MCP server.
  McpDriver& driver(const std::vector<std::string>& serve_args = {}, bool start = true) {
    const auto n = drivers_.size();
    drivers_.push_back(std::make_unique<McpDriver>(home_.env(), home_.path("mcp-driver-" + std::to_string(n) + ".err")));
    if (start) serve(*drivers_.back(), serve_args);
    return *drivers_.back();
  }
  json serve(McpDriver& d, const std::vector<std::string>& serve_args) {
    std::vector<std::string> argv = {cli_binary(), "mcp", "serve"};
    argv.insert(argv.end(), serve_args.begin(), serve_args.end());
    return d.start(argv);
  }

  // tools/call that must succeed at the protocol level; the tool result.
  json tool(McpDriver& d, const std::string& name, const json& args, const json& meta = nullptr) {
    const json answer = d.call(name, args, meta);
    if (!answer.value("ok", false)) throw std::runtime_error(name + " failed at the protocol level: " + answer.dump());
    return answer["result"];
  }
  json tool_ok(McpDriver& d, const std::string& name, const json& args, const json& meta = nullptr) {
    const json r = tool(d, name, args, meta);
    if (r.value("isError", false)) throw std::runtime_error(name + " answered isError: " + r.dump());
    return r;
  }

  json delivery_of(const std::string& message_id) {
    return http_json(owner_http(), "GET", "/v1/messages/" + message_id + "/receipt", std::nullopt, 200)["delivery"];
  }

  std::size_t attachment_count() { return call({{"op", "status"}})["attachments"].size(); }

  // R-D1 setup: `session` attached as reviewer with native push off (the Stop hook's delivery shows the offers),
  // and the owner's Crew api (the client functions) registered; no grant yet.
  void attach_reviewer_with_a_crew(McpDriver& d, const std::string& session) {
    const json a = call({{"op", "attach"}, {"provider", "claude"}, {"session_id", session}, {"agent_name", "reviewer"},
                         {"purpose", "Reviews"}, {"process", d.process_key()}, {"native", false}});
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    CrewFolder crew(std::filesystem::weakly_canonical(home_.path("crew-api")));
    declare_client_functions(crew, cli_binary());
    cli_ok(owner(), {"crews", "register", "api", "--dir", crew.dir().string()});
  }

  std::vector<std::unique_ptr<McpDriver>> drivers_;
};

// R-C1: the handshake, the five tools (and no attach/detach tool), ping, and no channel unless asked.
TEST_F(McpTest, HandshakeListsTheMessagingAndFunctionTools_RC1_RD1) {
  McpDriver& d = driver();
  const json started = d.ok({{"op", "ping"}});
  EXPECT_TRUE(started.is_object());
  const json tools = d.ok({{"op", "list"}})["tools"];
  std::set<std::string> names;
  for (const auto& t : tools) {
    names.insert(t["name"].get<std::string>());
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t.dump();
    EXPECT_FALSE(t.value("description", "").empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"agent_message_ack", "agent_message_no_reply", "agent_message_reply", "agent_message_send",
                                          "agent_message_read", "agent_message_peers", "list_functions",
                                          "call_function", "get_function_call", "reply_function_call",
                                          "cancel_function_call", "schedule_message_wakeup",
                                          "cancel_message_wakeup", "list_message_wakeups"}));
  // A second client with the channel flag declares experimental["claude/channel"]; the plain one does not.
  McpDriver& plain = driver({}, false);
  const json info = serve(plain, {});
  EXPECT_EQ(info["serverVersion"]["name"], "agentworks");
  EXPECT_FALSE(info["capabilities"].contains("experimental")) << info.dump();
  EXPECT_TRUE(info["capabilities"].contains("tools"));
  EXPECT_NE(info.value("instructions", "").find("agent_message_ack"), std::string::npos);
}

// Protocol versions: the client's is echoed when supported, else the newest; stdout carries only JSON-RPC.
TEST_F(McpTest, InitializeNegotiatesTheProtocolVersionAndStdoutIsOnlyJsonRpc) {
  for (const std::string v : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"}) {
    const std::string input =
        json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
              {"params", {{"protocolVersion", v}, {"capabilities", json::object()},
                          {"clientInfo", {{"name", "raw"}, {"version", "0"}}}}}}).dump() + "\n" +
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
        R"({"jsonrpc":"2.0","id":"p","method":"ping"})" "\n"
        "this is not json\n"
        R"({"jsonrpc":"2.0","id":3,"method":"no/such/method"})" "\n"
        R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"agent_message_attach","arguments":{}}})" "\n"
        R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"agent_message_send","arguments":{"target":"agent:worker","message":"x","session_id":"s"}}})" "\n"
        R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"agent_message_ack","arguments":{"message_id":"m","delivery":"seen"}}})" "\n";
    RunOptions o;
    o.env = home_.env();
    o.stdin_data = input;
    const auto r = run_process({cli_binary(), "mcp", "serve"}, o);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<json> lines;
    std::istringstream out(r.out);
    for (std::string line; std::getline(out, line);) {
      const json j = json::parse(line, nullptr, false);
      ASSERT_TRUE(j.is_object()) << "stdout line is not JSON-RPC: " << line;
      EXPECT_EQ(j["jsonrpc"], "2.0") << line;
      lines.push_back(j);
    }
    ASSERT_EQ(lines.size(), 7u) << r.out;  // the notification gets no answer
    EXPECT_EQ(lines[0]["result"]["protocolVersion"], v == "1999-01-01" ? "2025-11-25" : v);
    EXPECT_EQ(lines[1]["id"], "p");
    EXPECT_EQ(lines[1]["result"], json::object());
    EXPECT_EQ(lines[2]["error"]["code"], -32700);
    EXPECT_EQ(lines[3]["error"]["code"], -32601);
    EXPECT_EQ(lines[4]["error"]["code"], -32602);  // unknown tool: there is no attach tool
    EXPECT_EQ(lines[5]["error"]["code"], -32602);  // R-C8: no argument can name a session
    EXPECT_EQ(lines[6]["error"]["code"], -32602);
  }
}

// R-C2: a chat that is not attached gets isError from every tool, telling the person to attach, and nothing is
// sent with the person's CLI login (which is present in this HOME).
TEST_F(McpTest, UnattachedToolsRefuseAndNeverUseTheLogin_RC2) {
  McpDriver& d = driver();
  const std::vector<std::pair<std::string, json>> calls = {
      {"agent_message_send", {{"target", "agent:worker"}, {"message", "must not be sent"}}},
      {"agent_message_reply", {{"inbox", "inb_x"}, {"message", "must not be sent"}}},
      {"agent_message_ack", {{"message_id", "msg_x"}, {"delivery", "admitted"}}},
      {"agent_message_read", json::object()},
      {"agent_message_peers", json::object()},
  };
  for (const auto& [name, args] : calls) {
    const json r = tool(d, name, args);
    EXPECT_TRUE(r.value("isError", false)) << name << ": " << r.dump();
    EXPECT_NE(text_of(r).find("/agentworks attach"), std::string::npos) << name << ": " << text_of(r);
    EXPECT_EQ(r["structuredContent"]["error"]["code"], "not_found") << r.dump();
  }
  EXPECT_TRUE(read_mailbox(owner(), "worker")["messages"].empty());
  EXPECT_EQ(attachment_count(), 0u);  // no tool attaches
}

// R-D1, R-D2: an attached chat delegates through its own tools. Without the person's grant list_functions is
// refused with the command; granted, call_function answers at once, the execution's question and then its outcome
// reach the chat through the bridge's once-only delivery (as the server's notices, not an agent's words), the chat
// answers with reply_function_call, reads the call, and cannot reach a call its agent did not make.
TEST_F(McpTest, AGrantedChatDelegatesAndIsToldOfQuestionAndOutcome_RD1_RD2) {
  McpDriver& d = driver();
  // Native push off: the Stop hook's delivery below is the route under test.
  attach_reviewer_with_a_crew(d, "sess-1");

  const json refused = tool(d, "list_functions", {{"target", "api"}});
  ASSERT_TRUE(refused.value("isError", false)) << refused.dump();
  EXPECT_EQ(refused["structuredContent"]["error"]["code"], "forbidden");
  EXPECT_NE(text_of(refused).find("agentworks agents grant reviewer --functions api"), std::string::npos)
      << text_of(refused);

  cli_ok(owner(), {"agents", "grant", "reviewer", "--functions", "api"});
  const json listed = tool_ok(d, "list_functions", {{"target", "api"}});
  EXPECT_EQ(listed["structuredContent"]["functions"].size(), 4u) << listed.dump();
  const json accepted = tool_ok(d, "call_function", {{"target", "api"}, {"function", "ask"},
                                                     {"arguments", {{"text", "x"}}}});
  const std::string id = accepted["structuredContent"]["call_id"];
  EXPECT_EQ(accepted["structuredContent"]["caller"]["agent_name"], "reviewer") << accepted.dump();
  EXPECT_TRUE(accepted["structuredContent"]["submission_id"].is_string()) << "the bridge gives every call one";
  EXPECT_NE(text_of(accepted).find("its questions and outcome come to this chat"), std::string::npos)
      << text_of(accepted);

  // The question arrives through the Stop hook's delivery, once.
  const json deliver = {{"op", "deliver"}, {"provider", "claude"}, {"session_id", "sess-1"}};
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1)) << "the call_question notice reaches the bridge";
  const json asked = call(deliver);
  const std::string asked_text = asked.value("text", "");
  EXPECT_NE(asked_text.find("call_question of function call " + id), std::string::npos) << asked_text;
  const json status = tool_ok(d, "get_function_call", {{"call_id", id}});
  ASSERT_EQ(status["structuredContent"]["pending_inputs"].size(), 1u) << status.dump();
  const std::string request = status["structuredContent"]["pending_inputs"][0]["request_id"];
  EXPECT_NE(asked_text.find(request), std::string::npos) << asked_text;
  EXPECT_NE(text_of(status).find("reply_function_call(call_id=\"" + id), std::string::npos) << text_of(status);
  tool_ok(d, "reply_function_call", {{"call_id", id}, {"request_id", request}, {"answer", "main"}});

  // The outcome arrives the same way, once; the chat reads it with its own tools too.
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1)) << "the call_outcome notice reaches the bridge";
  const std::string told = call(deliver).value("text", "");
  EXPECT_NE(told.find("call_outcome of function call " + id), std::string::npos) << told;
  EXPECT_NE(told.find("branch: main"), std::string::npos) << told;
  EXPECT_EQ(call(deliver).value("text", ""), "") << "offered once";
  const json read = tool_ok(d, "agent_message_read", {{"limit", 10}});
  const json& messages = read["structuredContent"]["messages"];
  ASSERT_EQ(messages.size(), 2u) << read.dump();
  EXPECT_EQ(messages[0]["kind"], "call_question");
  EXPECT_EQ(messages[1]["kind"], "call_outcome");
  EXPECT_EQ(messages[1]["status"], "completed");
  EXPECT_EQ(tool_ok(d, "get_function_call", {{"call_id", id}})["structuredContent"]["status"], "completed");
  EXPECT_EQ(tool_ok(d, "cancel_function_call", {{"call_id", id}})["structuredContent"]["cancel"], "already_ended");

  // A call the person made is not this chat's to read; bad arguments are refused before anything is sent.
  const json own = cli_ok(owner(), {"functions", "call", "--crew", "api", "--function", "echo", "--args",
                                    R"({"text":"mine"})"});
  const json foreign = tool(d, "get_function_call", {{"call_id", own["call_id"]}});
  EXPECT_TRUE(foreign.value("isError", false)) << foreign.dump();
  EXPECT_EQ(foreign["structuredContent"]["error"]["code"], "not_found");
  EXPECT_TRUE(tool(d, "call_function", {{"target", "api"}, {"function", "echo"}, {"arguments", "x"}})
                  .value("isError", false));
  EXPECT_FALSE(d.call("get_function_call", {{"call_id", id}, {"answer", "x"}}).value("ok", true))
      << "an unknown argument is invalid params, as for every tool";
}

// R-W1 R-W5: the chat's wakeup tools schedule, move, list and cancel the wakeups of its own agent, answer the
// server's Wakeup as structuredContent with a text that names the next step, and a bad argument is the tool's
// error (nothing scheduled).
TEST_F(McpTest, TheChatsWakeupToolsManageItsOwnAgentsWakeups_RW1_RW5) {
  McpDriver& d = driver();
  attach("claude", "sess-wake", "reviewer", d.process_key());
  const json scheduled = tool_ok(d, "schedule_message_wakeup", {{"after_minutes", 45}, {"note", "check the deploy"}});
  const std::string id = scheduled["structuredContent"]["wakeup_id"].get<std::string>();
  EXPECT_EQ(scheduled["structuredContent"]["state"], "pending");
  EXPECT_NE(text_of(scheduled).find("cancel_message_wakeup"), std::string::npos) << text_of(scheduled);
  const json too_far = tool(d, "schedule_message_wakeup",
                            {{"at", "2099-01-01T00:00:00Z"}, {"note", "too far"}, {"wakeup_id", id}});
  EXPECT_TRUE(too_far.value("isError", false)) << too_far.dump();
  EXPECT_EQ(too_far["structuredContent"]["error"]["code"], "bad_request");
  EXPECT_NE(text_of(too_far).find("30 days"), std::string::npos) << text_of(too_far);
  const json moved = tool_ok(d, "schedule_message_wakeup", {{"after_minutes", 90}, {"note", "check it"},
                                                            {"wakeup_id", id}});
  EXPECT_EQ(moved["structuredContent"]["wakeup_id"], id);
  EXPECT_FALSE(d.call("list_message_wakeups", {{"agent_name", "worker"}}).value("ok", true))
      << "a chat names no other agent: an unknown argument is invalid params";
  const json listed = tool_ok(d, "list_message_wakeups", json::object());
  ASSERT_EQ(listed["structuredContent"]["wakeups"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["structuredContent"]["wakeups"][0]["note"], "check it");
  EXPECT_NE(text_of(listed).find(id + " pending"), std::string::npos) << text_of(listed);
  EXPECT_EQ(tool_ok(d, "cancel_message_wakeup", {{"wakeup_id", id}})["structuredContent"]["state"], "cancelled");
  EXPECT_EQ(cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"})["wakeups"][0]["state"], "cancelled")
      << "the person sees what the chat did";
  EXPECT_EQ(cli_ok(owner(), {"wakeups", "list", "--agent", "worker"})["wakeups"].size(), 0u);
}

// R-C1, R-C4, R-C5, R-B13, R-C9: every tool acts as the attached agent through its child connection.
TEST_F(McpTest, EveryToolActsAsTheAttachedAgent_RC1_RC4_RC5) {
  McpDriver& d = driver();
  attach("claude", "sess-1", "reviewer", d.process_key());

  // peers: same account, with purpose and connected; not itself.
  const json peers = tool_ok(d, "agent_message_peers", json::object());
  ASSERT_EQ(peers["structuredContent"]["agent_name"], "reviewer");
  ASSERT_EQ(peers["structuredContent"]["peers"].size(), 1u) << peers.dump();
  EXPECT_EQ(peers["structuredContent"]["peers"][0]["agent_name"], "worker");
  EXPECT_EQ(peers["structuredContent"]["peers"][0]["purpose"], "Builds things");
  EXPECT_EQ(peers["structuredContent"]["peers"][0]["connected"], false);
  EXPECT_NE(text_of(peers).find("worker"), std::string::npos);

  // send: stored as from reviewer (its child connection, not the person's login).
  const json sent = tool_ok(d, "agent_message_send", {{"target", "worker"}, {"message", "hello worker"},
                                                       {"submission_id", "sub-send-1"}});
  EXPECT_EQ(sent["structuredContent"]["state"], "sent") << sent.dump();
  const json worker_box = read_mailbox(owner(), "worker");
  ASSERT_EQ(texts_of(worker_box), std::vector<std::string>{"hello worker"});
  EXPECT_EQ(worker_box["messages"][0]["sender"]["agent_name"], "reviewer");
  EXPECT_NE(worker_box["messages"][0]["sender"]["connection_id"], owner_connection_id());
  // The same submission_id again stores nothing new.
  tool_ok(d, "agent_message_send", {{"target", "agent:worker"}, {"message", "hello worker"},
                                    {"submission_id", "sub-send-1"}});
  EXPECT_EQ(read_mailbox(owner(), "worker")["messages"].size(), 1u);

  // Two messages to reviewer from worker, in two conversations' worth of steps.
  const json r1 = send_as(owner(), "worker", "agent:reviewer", "please review A");
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1));
  // read: the mailbox, bounded, with cursors.
  const json read = tool_ok(d, "agent_message_read", {{"limit", 10}});
  ASSERT_EQ(read["structuredContent"]["messages"].size(), 1u) << read.dump();
  EXPECT_EQ(read["structuredContent"]["messages"][0]["message"], "please review A");
  EXPECT_EQ(read["structuredContent"]["filtered"], 0);
  EXPECT_NE(text_of(read).find("please review A"), std::string::npos);
  const std::string next = read["structuredContent"]["next_cursor"];
  EXPECT_TRUE(tool_ok(d, "agent_message_read", {{"after", next}})["structuredContent"]["messages"].empty());

  // ack admitted, then reply by message id while the body is still cached: same conversation (R-C5).
  const std::string msg1 = r1["message_id"];
  tool_ok(d, "agent_message_ack", {{"message_id", msg1}, {"delivery", "admitted"}});
  EXPECT_EQ(delivery_of(msg1)["state"], "admitted");
  const json rep1 = tool_ok(d, "agent_message_reply", {{"message_id", msg1}, {"message", "looks good"}});
  EXPECT_EQ(rep1["structuredContent"]["answer"]["inbox_id"], r1["inbox_id"]) << rep1.dump();
  const json inbox1 = read_inbox(owner(), r1["inbox_id"]);
  ASSERT_EQ(texts_of(inbox1), (std::vector<std::string>{"please review A", "looks good"}));
  EXPECT_EQ(inbox1["messages"][1]["direction"], "to_initiator");
  EXPECT_EQ(inbox1["messages"][1]["sender"]["agent_name"], "reviewer");
  tool_ok(d, "agent_message_ack", {{"message_id", msg1}, {"delivery", "processed"}});
  EXPECT_EQ(delivery_of(msg1)["state"], "processed");

  // A message offered by the Stop hook (body cleared in the journal): reply by id still finds its inbox.
  const json r2 = send_as(owner(), "worker", "agent:reviewer", "please review B");
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1));
  const json taken = call({{"op", "take"}, {"provider", "claude"}, {"session_id", "sess-1"}});
  ASSERT_EQ(taken["messages"].size(), 1u) << taken.dump();
  const json rep2 = tool_ok(d, "agent_message_reply", {{"message_id", r2["message_id"]}, {"message", "B is fine"}});
  EXPECT_EQ(rep2["structuredContent"]["answer"]["inbox_id"], r2["inbox_id"]);
  EXPECT_EQ(texts_of(read_inbox(owner(), r2["inbox_id"])).back(), "B is fine");

  // R-B13: once the metadata is cleaned up, reply by id says to read the mailbox and reply with the inbox.
  tool_ok(d, "agent_message_ack", {{"message_id", r2["message_id"]}, {"delivery", "processed"}});
  call({{"op", "cleanup"}});
  const json retired = tool(d, "agent_message_reply", {{"message_id", r2["message_id"]}, {"message", "again"}});
  EXPECT_TRUE(retired.value("isError", false)) << retired.dump();
  EXPECT_NE(text_of(retired).find("agent_message_read"), std::string::npos) << text_of(retired);
  EXPECT_NE(text_of(retired).find("inbox"), std::string::npos);
  const json by_inbox = tool_ok(d, "agent_message_reply", {{"inbox", r2["inbox_id"]}, {"message", "again"}});
  EXPECT_EQ(by_inbox["structuredContent"]["answer"]["inbox_id"], r2["inbox_id"]);
}

// R-X2: agent_message_no_reply (and `bridge message no-reply`) declines a message on purpose: the sender's receipt
// reads processed and reply_state no_reply, the reason stays in the bridge's log and reaches neither the server nor
// the sender; a reply sent afterwards turns the state replied, and a message answered is never marked declined.
TEST_F(McpTest, NoReplyDeclinesOnPurposeAndTheSenderSeesOnlyThat_RX2) {
  McpDriver& d = driver();
  attach("claude", "sess-1", "reviewer", d.process_key());
  const json first = send_as(owner(), "worker", "agent:reviewer", "FYI: the build is green");
  EXPECT_EQ(delivery_of(first["message_id"])["reply_state"], "pending");
  const std::string reason = "only news, nothing to answer (private-note-7)";
  const json declined = tool_ok(d, "agent_message_no_reply", {{"message_id", first["message_id"]}, {"reason", reason}});
  EXPECT_EQ(declined["structuredContent"]["state"], "sent") << declined.dump();
  const json seen = delivery_of(first["message_id"]);
  EXPECT_EQ(seen["reply_state"], "no_reply") << seen.dump();
  EXPECT_EQ(seen["state"], "processed") << seen.dump();
  EXPECT_EQ(read_inbox(owner(), first["inbox_id"]).dump().find("private-note-7"), std::string::npos);
  EXPECT_NE(bridge_->log().find("private-note-7"), std::string::npos) << "the reason stays in the bridge's log";

  // A later reply in that conversation turns it replied; declining after a reply changes nothing.
  tool_ok(d, "agent_message_reply", {{"inbox", first["inbox_id"]}, {"message", "thanks after all"}});
  EXPECT_EQ(delivery_of(first["message_id"])["reply_state"], "replied");
  const json second = send_as(owner(), "worker", "agent:reviewer", "and the tests?");
  tool_ok(d, "agent_message_reply", {{"inbox", second["inbox_id"]}, {"message", "green too"}});
  tool_ok(d, "agent_message_no_reply", {{"message_id", second["message_id"]}});
  EXPECT_EQ(delivery_of(second["message_id"])["reply_state"], "replied");

  // Bad input changes nothing.
  const json fourth = send_as(owner(), "worker", "agent:reviewer", "one more");
  EXPECT_TRUE(tool(d, "agent_message_no_reply", {{"message_id", fourth["message_id"]}, {"reason", std::string(501, 'x')}})
                  .value("isError", false));
  EXPECT_EQ(delivery_of(fourth["message_id"])["reply_state"], "pending");
}

// R-X4: a reply without an address answers the one conversation of the messages the chat was handed and has not
// marked processed; with two conversations it is refused with both listed and nothing is sent. R-X2: a decline
// without message_id declines every such message.
TEST_F(McpTest, AnAddresslessReplyAnswersTheConversationTheChatWasHanded_RX4_RX2) {
  McpDriver& d = driver();
  attach("claude", "sess-1", "reviewer", d.process_key());
  register_agent(owner(), "critic");
  const auto take = [&] { return call({{"op", "take"}, {"provider", "claude"}, {"session_id", "sess-1"}}); };
  const json nothing = tool(d, "agent_message_reply", {{"message", "to whom?"}});
  EXPECT_TRUE(nothing.value("isError", false)) << nothing.dump();
  EXPECT_NE(text_of(nothing).find("no message handed to this chat"), std::string::npos) << text_of(nothing);

  const json a = send_as(owner(), "worker", "agent:reviewer", "review A please");
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1));
  ASSERT_EQ(take()["messages"].size(), 1u);
  tool_ok(d, "agent_message_reply", {{"message", "A is fine"}});
  EXPECT_EQ(texts_of(read_inbox(owner(), a["inbox_id"])).back(), "A is fine");
  EXPECT_EQ(delivery_of(a["message_id"])["reply_state"], "replied");

  // A is answered (settled): the next address-less reply goes to B's conversation, not A's.
  const json b = send_as(owner(), "critic", "agent:reviewer", "and B?");
  ASSERT_TRUE(wait_pending("claude", "sess-1", 1));
  ASSERT_EQ(take()["messages"].size(), 1u);
  tool_ok(d, "agent_message_reply", {{"message", "B too"}});
  EXPECT_EQ(texts_of(read_inbox(owner(), b["inbox_id"])).back(), "B too");
  EXPECT_EQ(texts_of(read_inbox(owner(), a["inbox_id"])).back(), "A is fine");

  // Two unanswered conversations: refused with both listed, nothing sent.
  const json c = send_as(owner(), "worker", "agent:reviewer", "C?");
  const json d2 = send_as(owner(), "critic", "agent:reviewer", "D?");
  ASSERT_TRUE(wait_pending("claude", "sess-1", 2));
  ASSERT_EQ(take()["messages"].size(), 2u);
  const json two = tool(d, "agent_message_reply", {{"message", "which one?"}});
  EXPECT_TRUE(two.value("isError", false)) << two.dump();
  for (const json* m : {&c, &d2})
    EXPECT_NE(text_of(two).find((*m)["message_id"].get<std::string>()), std::string::npos) << text_of(two);
  EXPECT_EQ(texts_of(read_inbox(owner(), d2["inbox_id"])).back(), "D?") << "nothing was sent";

  const json declined = tool_ok(d, "agent_message_no_reply", {{"submission_id", "decline-all-1"}});
  EXPECT_EQ(declined["structuredContent"]["declined"].size(), 2u) << declined.dump();
  // A retry with the same submission_id answers what the first one did (R-B2), nothing more.
  const json again = tool_ok(d, "agent_message_no_reply", {{"submission_id", "decline-all-1"}});
  EXPECT_EQ(again["structuredContent"]["declined"], declined["structuredContent"]["declined"]) << again.dump();
  EXPECT_EQ(delivery_of(c["message_id"])["reply_state"], "no_reply");
  EXPECT_EQ(delivery_of(d2["message_id"])["reply_state"], "no_reply");
  EXPECT_EQ(delivery_of(b["message_id"])["reply_state"], "replied") << "an answered message is not declined";
  EXPECT_EQ(delivery_of(d2["message_id"])["state"], "processed");
  EXPECT_TRUE(tool(d, "agent_message_reply", {{"message", "again?"}}).value("isError", false))
      << "everything is answered or declined: nothing is waiting for an answer";
}

// R-C6: each MCP child acts for the session of its own provider process, whichever chat attached last.
TEST_F(McpTest, EachChildIsBoundToItsOwnProviderProcess_RC6) {
  McpDriver& a = driver();
  McpDriver& b = driver();
  attach("claude", "sess-a", "alpha", a.process_key());
  attach("claude", "sess-b", "beta", b.process_key());  // the most recent attachment
  tool_ok(a, "agent_message_send", {{"target", "agent:worker"}, {"message", "from a"}});
  tool_ok(b, "agent_message_send", {{"target", "agent:worker"}, {"message", "from b"}});
  const json box = read_mailbox(owner(), "worker");
  ASSERT_EQ(box["messages"].size(), 2u);
  EXPECT_EQ(box["messages"][0]["message"], "from a");
  EXPECT_EQ(box["messages"][0]["sender"]["agent_name"], "alpha");
  EXPECT_EQ(box["messages"][1]["message"], "from b");
  EXPECT_EQ(box["messages"][1]["sender"]["agent_name"], "beta");
  EXPECT_EQ(tool_ok(a, "agent_message_peers", json::object())["structuredContent"]["agent_name"], "alpha");

  // A bridge restart forgets in-memory registrations; the key stored with the attachment still binds the child.
  EXPECT_EQ(bridge_->stop(), 0);
  bridge_->start();
  tool_ok(a, "agent_message_send", {{"target", "agent:worker"}, {"message", "a after restart"}});
  EXPECT_EQ(read_mailbox(owner(), "worker")["messages"][2]["sender"]["agent_name"], "alpha");

  // Detached: refused again, with the attach hint.
  call({{"op", "detach"}, {"provider", "claude"}, {"session_id", "sess-a"}});
  const json r = tool(a, "agent_message_send", {{"target", "agent:worker"}, {"message", "after detach"}});
  EXPECT_TRUE(r.value("isError", false)) << r.dump();
  EXPECT_EQ(read_mailbox(owner(), "worker")["messages"].size(), 3u);
}

// R-C8: Codex calls are routed by the host's _meta["x-codex-turn-metadata"].thread_id, checked against the
// provider process stored for that thread; missing or invalid host identity is refused.
TEST_F(McpTest, CodexRoutesByTheHostThreadId_RC8) {
  McpDriver& codex = driver({"--provider", "codex"});
  McpDriver& other = driver({"--provider", "codex"});
  attach("codex", "thread-1", "coder", codex.process_key());
  attach("codex", "thread-2", "tester", codex.process_key());  // one Codex process, two threads
  attach("codex", "thread-9", "stranger", other.process_key());
  const auto meta = [](const json& thread) { return json{{"x-codex-turn-metadata", {{"thread_id", thread}, {"turn_id", "t"}}}}; };

  tool_ok(codex, "agent_message_send", {{"target", "agent:worker"}, {"message", "from thread 1"}}, meta("thread-1"));
  tool_ok(codex, "agent_message_send", {{"target", "agent:worker"}, {"message", "from thread 2"}}, meta("thread-2"));
  const json box = read_mailbox(owner(), "worker");
  ASSERT_EQ(box["messages"].size(), 2u);
  EXPECT_EQ(box["messages"][0]["sender"]["agent_name"], "coder");
  EXPECT_EQ(box["messages"][1]["sender"]["agent_name"], "tester");

  const std::vector<json> refused = {
      nullptr,                                              // no host metadata at all
      json{{"x-codex-turn-metadata", {{"turn_id", "t"}}}},  // metadata without a thread id
      meta(42),                                             // not a string
      meta("bad\nthread"),                                  // not printable ASCII
      meta("thread-unknown"),                               // not attached
      meta("thread-9"),                                     // attached, but by another Codex process
  };
  for (const auto& m : refused) {
    const json r = tool(codex, "agent_message_send", {{"target", "agent:worker"}, {"message", "refused"}}, m);
    EXPECT_TRUE(r.value("isError", false)) << m.dump() << " -> " << r.dump();
  }
  // Without --provider codex the process alone is still refused for a Codex chat (it is ambiguous).
  McpDriver& plain = driver({}, false);
  attach("codex", "thread-p", "plain", plain.process_key());
  serve(plain, {});
  const json r = tool(plain, "agent_message_peers", json::object());
  EXPECT_TRUE(r.value("isError", false)) << r.dump();
  EXPECT_NE(text_of(r).find("thread"), std::string::npos) << text_of(r);
  EXPECT_EQ(read_mailbox(owner(), "worker")["messages"].size(), 2u);
}

// R-C3, R-C4, R-B5: with --claude-channel each message is pushed once as notifications/claude/channel (persisted
// as offered by the bridge before it is emitted), never again after a bridge restart; the push alone leaves the
// receipt `stored` until the agent acks.
TEST_F(McpTest, ClaudeChannelPushesEachMessageOnce_RC3_RC4_RB5) {
  McpDriver& d = driver({}, false);
  const json att = attach("claude", "sess-ch", "listener", d.process_key());
  const json info = serve(d, {"--provider", "claude", "--claude-channel"});
  ASSERT_TRUE(info["capabilities"].contains("experimental")) << info.dump();
  EXPECT_TRUE(info["capabilities"]["experimental"].contains("claude/channel"));

  const json first = send_as(owner(), "worker", "agent:listener", "ping one");
  const auto n1 = d.next_notification();
  ASSERT_TRUE(n1.has_value()) << "no channel notification";
  EXPECT_EQ((*n1)["method"], "notifications/claude/channel");
  EXPECT_EQ((*n1)["params"]["content"], "ping one");
  const json meta = (*n1)["params"]["meta"];
  EXPECT_EQ(meta["message_id"], first["message_id"]);
  EXPECT_EQ(meta["sender"], "worker");
  EXPECT_EQ(meta["inbox_id"], first["inbox_id"]);
  EXPECT_EQ(meta["attachment_id"], att["attachment_id"]);
  EXPECT_EQ(delivery_of(first["message_id"])["state"], "stored");  // an emitted notification is not an admission

  // The bridge restarts mid-session: the offered message is not pushed again; the next one is.
  EXPECT_EQ(bridge_->stop(), 0);
  bridge_->start();
  const json second = send_as(owner(), "worker", "agent:listener", "ping two");
  const auto n2 = d.next_notification(std::chrono::seconds(40));
  ASSERT_TRUE(n2.has_value()) << "no channel notification after the bridge restart";
  EXPECT_EQ((*n2)["params"]["content"], "ping two");
  EXPECT_EQ((*n2)["params"]["meta"]["message_id"], second["message_id"]);
  // The pushed message stays readable through the tool, and the agent's ack sets the receipt.
  EXPECT_EQ(tool_ok(d, "agent_message_read", json::object())["structuredContent"]["messages"].size(), 2u);
  tool_ok(d, "agent_message_ack", {{"message_id", first["message_id"]}, {"delivery", "admitted"}});
  EXPECT_EQ(delivery_of(first["message_id"])["state"], "admitted");
  int pushes_of_first = 0;
  for (const auto& n : d.notifications()) {
    if (n["params"]["meta"]["message_id"] == first["message_id"]) ++pushes_of_first;
  }
  EXPECT_EQ(pushes_of_first, 1);
  EXPECT_EQ(d.notifications().size(), 2u);
}

// R-B2: with the server down every messaging tool call is answered "queued" (not only the first),
// and each result carries a submission_id: minted by the tool layer when the model gives none, so passing it back
// on a retry never stores the message twice. The schema documents the argument on all three outbox tools.
TEST_F(McpTest, ToolsReturnASubmissionIdAndARetryWithItIsStoredOnce_RB2) {
  McpDriver& d = driver();
  const json listed = d.ok({{"op", "list"}});
  for (const auto& t : listed["tools"]) {
    const std::string name = t["name"];
    if (name == "agent_message_ack" || name == "agent_message_reply" || name == "agent_message_send") {
      EXPECT_TRUE(t["inputSchema"]["properties"].contains("submission_id")) << t.dump();
    }
  }
  attach("claude", "sess-q", "queuer", d.process_key());
  const json incoming = send_as(owner(), "worker", "agent:queuer", "question before the outage");
  ASSERT_TRUE(wait_pending("claude", "sess-q", 1));
  kill_server();

  const json first = tool_ok(d, "agent_message_send", {{"target", "worker"}, {"message", "mcp during outage"}});
  EXPECT_EQ(first["structuredContent"]["state"], "queued") << first.dump();
  const std::string id = first["structuredContent"].value("submission_id", "");
  ASSERT_EQ(id.rfind("sub_", 0), 0u) << first.dump();
  EXPECT_NE(text_of(first).find(id), std::string::npos) << text_of(first);
  // The model retries with the id it was given: answered from the journal.
  const json retry = tool_ok(d, "agent_message_send", {{"target", "worker"}, {"message", "mcp during outage"},
                                                       {"submission_id", id}});
  EXPECT_EQ(retry["structuredContent"]["state"], "queued") << retry.dump();
  EXPECT_EQ(retry["structuredContent"]["submission_id"], id);
  // Later calls are answered too, each with its own id.
  const json second = tool_ok(d, "agent_message_send", {{"target", "worker"}, {"message", "mcp second"}});
  EXPECT_EQ(second["structuredContent"]["state"], "queued") << second.dump();
  const json reply = tool_ok(d, "agent_message_reply", {{"inbox", incoming["inbox_id"]}, {"message", "mcp reply"}});
  EXPECT_EQ(reply["structuredContent"]["state"], "queued") << reply.dump();
  const json ack = tool_ok(d, "agent_message_ack", {{"message_id", incoming["message_id"]}, {"delivery", "admitted"},
                                                    {"submission_id", "mcp-ack-1"}});
  EXPECT_EQ(ack["structuredContent"]["submission_id"], "mcp-ack-1") << ack.dump();
  const std::set<std::string> ids = {id, second["structuredContent"].value("submission_id", ""),
                                     reply["structuredContent"].value("submission_id", ""), "mcp-ack-1"};
  EXPECT_EQ(ids.size(), 4u);
  // The same id for a different message is refused, and says which id it was.
  const json conflict = tool(d, "agent_message_send", {{"target", "worker"}, {"message", "other"}, {"submission_id", id}});
  EXPECT_TRUE(conflict.value("isError", false)) << conflict.dump();
  EXPECT_EQ(conflict["structuredContent"]["error"]["code"], "conflict");
  EXPECT_EQ(conflict["structuredContent"]["submission_id"], id);

  restart_server_same_port();
  ASSERT_TRUE(wait_until([&] { return call({{"op", "status"}})["outbox_queued"] == 0; }, std::chrono::seconds(90),
                         std::chrono::milliseconds(200)));
  const auto texts = texts_of(read_mailbox(owner(), "worker"));
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "mcp during outage"), 1);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "mcp second"), 1);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "mcp reply"), 1);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "other"), 0);
  EXPECT_EQ(delivery_of(incoming["message_id"])["state"], "admitted");
}

// R-M10: a message of only white space says nothing: the MCP tools, the bridge's op and `agentworks bridge
// message` all refuse it with invalid_message, and nothing is stored.
TEST_F(McpTest, BlankMessagesAreRefusedWithInvalidMessage_RM10) {
  McpDriver& d = driver();
  attach("claude", "sess-blank", "blanker", d.process_key());
  const std::string blank = " \t\n\xC2\xA0\xE3\x80\x80 ";  // spaces, tab, line break, no-break, ideographic
  for (const std::string tool_name : {"agent_message_send", "agent_message_reply"}) {
    json args = {{"message", blank}};
    if (tool_name == "agent_message_send") args["target"] = "agent:worker";
    else args["inbox"] = "inb_x";
    const json r = tool(d, tool_name, args);
    EXPECT_TRUE(r.value("isError", false)) << tool_name << ": " << r.dump();
    EXPECT_EQ(r["structuredContent"]["error"]["code"], "invalid_message") << r.dump();
    EXPECT_NE(text_of(r).find("not only spaces"), std::string::npos) << text_of(r);
  }
  const json op = call({{"op", "reply"}, {"provider", "claude"}, {"session_id", "sess-blank"},
                        {"inbox_id", "inb_x"}, {"message", blank}, {"process", d.process_key()}});
  EXPECT_NE(op.value("ok", false), true) << op.dump();
  EXPECT_EQ(op["error"]["code"], "invalid_message") << op.dump();

  const json key = own_process_key();
  attach("claude", "sess-blank-cli", "blankcli", key);
  const auto cli = Cli(home_.env()).json({"bridge", "message", "send", "--provider", "claude", "--target",
                                          "agent:worker", "--message", "   \n  "});
  EXPECT_EQ(cli.exit_code, 2) << cli.describe();
  EXPECT_EQ(cli.error_code(), "invalid_message") << cli.describe();
  EXPECT_TRUE(read_mailbox(owner(), "worker")["messages"].empty());
}

// R-D1: a call made while the server is down is answered `queued` with its submission id, journaled by the
// bridge, and made once when the server is back (a repeat with the id while queued makes nothing more); its
// outcome then reaches the chat like any notice.
TEST_F(McpTest, ACallMadeWhileTheServerIsDownIsQueuedAndMadeOnce_RD1) {
  McpDriver& d = driver();
  attach_reviewer_with_a_crew(d, "sess-q");
  cli_ok(owner(), {"agents", "grant", "reviewer", "--functions", "api"});

  kill_server();
  const json args = {{"target", "api"}, {"function", "echo"}, {"arguments", {{"text", "while down"}}}};
  const json queued = tool_ok(d, "call_function", args);
  EXPECT_EQ(queued["structuredContent"]["state"], "queued") << queued.dump();
  const std::string id = queued["structuredContent"]["submission_id"];
  EXPECT_NE(text_of(queued).find(id), std::string::npos) << text_of(queued);
  json again = args;
  again["submission_id"] = id;
  EXPECT_EQ(tool_ok(d, "call_function", again)["structuredContent"]["state"], "queued");

  restart_server_same_port();
  ASSERT_TRUE(wait_until([&] { return call({{"op", "status"}})["outbox_queued"] == 0; }, std::chrono::seconds(60)));
  const json calls = http_json(owner_http(), "GET", "/v1/calls", std::nullopt, 200)["calls"];
  ASSERT_EQ(calls.size(), 1u) << "made once: " << calls.dump();
  EXPECT_EQ(calls[0]["caller"]["agent_name"], "reviewer");
  ASSERT_TRUE(wait_pending("claude", "sess-q", 1)) << "the outcome notice reaches the chat";
  const std::string told = call({{"op", "deliver"}, {"provider", "claude"}, {"session_id", "sess-q"}}).value("text", "");
  EXPECT_NE(told.find("call_outcome of function call " + calls[0]["call_id"].get<std::string>()), std::string::npos)
      << told;
  EXPECT_EQ(tool_ok(d, "call_function", again)["structuredContent"]["call_id"], calls[0]["call_id"])
      << "the same id afterwards answers the call it made";
}

// R-D1: the same function actions from a shell of the attached chat (Cursor's fallback without the plugin's MCP
// server): `agentworks bridge function list|call|status|reply|cancel --provider P`, as the chat's agent.
TEST_F(McpTest, BridgeFunctionCommandsActForTheCallersSession_RD1) {
  const json key = own_process_key();
  Cli cli(home_.env());
  attach("cursor", "sess-cursor", "helper", key);
  CrewFolder crew(std::filesystem::weakly_canonical(home_.path("crew-api")));
  declare_client_functions(crew, cli_binary());
  cli_ok(owner(), {"crews", "register", "api", "--dir", crew.dir().string()});
  const auto refused = cli.json({"bridge", "function", "list", "--provider", "cursor", "--crew", "api"});
  EXPECT_EQ(refused.exit_code, 3) << refused.describe();
  EXPECT_EQ(refused.error_code(), "forbidden") << refused.describe();

  cli_ok(owner(), {"agents", "grant", "helper", "--functions", "api"});
  const auto listed = cli.json({"bridge", "function", "list", "--provider", "cursor", "--crew", "api"});
  ASSERT_EQ(listed.exit_code, 0) << listed.describe();
  EXPECT_EQ(listed.json()["functions"].size(), 4u);
  const auto made = cli.json({"bridge", "function", "call", "--provider", "cursor", "--crew", "api", "--function",
                              "ask", "--args", R"({"text":"x"})", "--submission-id", "cursor-1"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const std::string id = made.json()["call_id"];
  EXPECT_EQ(made.json()["caller"]["agent_name"], "helper");
  const auto again = cli.json({"bridge", "function", "call", "--provider", "cursor", "--crew", "api", "--function",
                               "ask", "--args", R"({"text":"x"})", "--submission-id", "cursor-1"});
  EXPECT_EQ(again.json()["call_id"], id) << "the same submission id is the same call";
  json status;
  ASSERT_TRUE(wait_until([&] {
    status = cli.json({"bridge", "function", "status", "--provider", "cursor", "--call", id}).json();
    return !status.value("pending_inputs", json::array()).empty();
  }));
  const std::string request = status["pending_inputs"][0]["request_id"];
  const auto human = cli.run({"bridge", "function", "status", "--provider", "cursor", "--call", id});
  EXPECT_NE(human.out.find("reply_function_call"), std::string::npos) << human.describe();
  ASSERT_EQ(cli.json({"bridge", "function", "reply", "--provider", "cursor", "--call", id, "--request", request,
                      "--answer", "main"}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] {
    return cli.json({"bridge", "function", "status", "--provider", "cursor", "--call", id}).json().value("status", "") ==
           "completed";
  }));
  const auto cancelled = cli.json({"bridge", "function", "cancel", "--provider", "cursor", "--call", id});
  EXPECT_EQ(cancelled.json()["cancel"], "already_ended") << cancelled.describe();
  EXPECT_EQ(cli.json({"bridge", "function", "call", "--provider", "cursor", "--crew", "api", "--function", "ask",
                      "--args", "[1]"}).exit_code, 2) << "arguments must be an object";
}

// R-C7: `agentworks bridge message …` acts for the exact attached session of the calling process (this test
// process is its provider ancestor) and never attaches anything.
TEST_F(McpTest, BridgeMessageCommandsActForTheCallersSession_RC7) {
  const json key = own_process_key();
  Cli cli(home_.env());
  // Not attached yet: refused (not_found, exit 4), nothing attached by the attempt.
  const auto before = cli.json({"bridge", "message", "peers", "--provider", "claude"});
  EXPECT_EQ(before.exit_code, 4) << before.describe();
  EXPECT_EQ(before.error_code(), "not_found");
  EXPECT_NE(before.json()["error"]["message"].get<std::string>().find("/agentworks attach"), std::string::npos);
  EXPECT_EQ(attachment_count(), 0u);
  EXPECT_NE(cli.run({"bridge", "message", "attach", "--provider", "claude"}).exit_code, 0);

  attach("claude", "sess-cli", "helper", key);
  const auto peers = cli.json({"bridge", "message", "peers", "--provider", "claude"});
  ASSERT_EQ(peers.exit_code, 0) << peers.describe();
  EXPECT_EQ(peers.json()["agent_name"], "helper");
  const auto sent = cli.json({"bridge", "message", "send", "--provider", "claude", "--target", "agent:worker",
                              "--message", "from the shell", "--submission-id", "cli-1"});
  ASSERT_EQ(sent.exit_code, 0) << sent.describe();
  EXPECT_EQ(read_mailbox(owner(), "worker")["messages"][0]["sender"]["agent_name"], "helper");

  const json incoming = send_as(owner(), "worker", "agent:helper", "question for helper");
  ASSERT_TRUE(wait_pending("claude", "sess-cli", 1));
  const auto read = cli.json({"bridge", "message", "read", "--provider", "claude", "--limit", "5"});
  ASSERT_EQ(read.exit_code, 0) << read.describe();
  EXPECT_EQ(texts_of(read.json()), std::vector<std::string>{"question for helper"});
  const auto ack = cli.json({"bridge", "message", "ack", "--provider", "claude", "--message-id",
                             incoming["message_id"], "--delivery", "admitted"});
  ASSERT_EQ(ack.exit_code, 0) << ack.describe();
  EXPECT_EQ(delivery_of(incoming["message_id"])["state"], "admitted");
  const auto reply = cli.json({"bridge", "message", "reply", "--provider", "claude", "--message-id",
                               incoming["message_id"], "--message", "answer from helper"});
  ASSERT_EQ(reply.exit_code, 0) << reply.describe();
  EXPECT_EQ(texts_of(read_inbox(owner(), incoming["inbox_id"])).back(), "answer from helper");
  // R-X2: the fallback command declines a message on purpose.
  const json news = send_as(owner(), "worker", "agent:helper", "weekly summary attached");
  const auto declined = cli.json({"bridge", "message", "no-reply", "--provider", "claude", "--message-id",
                                  news["message_id"], "--reason", "read it"});
  ASSERT_EQ(declined.exit_code, 0) << declined.describe();
  EXPECT_EQ(delivery_of(news["message_id"])["reply_state"], "no_reply");
  // Human output says what happened.
  const auto human = cli.run({"bridge", "message", "peers", "--provider", "claude"});
  EXPECT_NE(human.out.find("worker"), std::string::npos) << human.describe();
  // Another provider's chat is not this one.
  EXPECT_EQ(cli.json({"bridge", "message", "peers", "--provider", "cursor"}).exit_code, 4);

  // Codex: CODEX_THREAD_ID with the stored provider process key.
  attach("codex", "thread-c", "codexer", key);
  EnvOverrides with_thread = home_.env();
  with_thread["CODEX_THREAD_ID"] = "thread-c";
  const auto codex_ok = Cli(with_thread).json({"bridge", "message", "peers", "--provider", "codex"});
  ASSERT_EQ(codex_ok.exit_code, 0) << codex_ok.describe();
  EXPECT_EQ(codex_ok.json()["agent_name"], "codexer");
  EnvOverrides no_thread = home_.env();
  no_thread["CODEX_THREAD_ID"] = std::nullopt;
  EXPECT_EQ(Cli(no_thread).json({"bridge", "message", "peers", "--provider", "codex"}).exit_code, 2);
  with_thread["CODEX_THREAD_ID"] = "thread-other";
  EXPECT_EQ(Cli(with_thread).json({"bridge", "message", "peers", "--provider", "codex"}).exit_code, 4);
  EXPECT_EQ(attachment_count(), 2u);
}

}  // namespace
}  // namespace agentworks::testing
