// Talking to a Crew from the client side (R-K1 … R-K3), against a canned HTTP server instead of agentworks-server:
// `messages send --target crew:NAME` and `crews ask` send the same body; `crews set --messaging` takes on, off or
// file (null on the wire) and nothing else; `crews show` prints the Crew's agent, its switch and its
// conversations; the full connection's `messages` tool asks a Crew; and `mcp serve --conversation` serves its two
// tools over stdio, posts them to the turn routes with the turn's secret, and refuses to start without its
// environment.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "checks.hpp"
#include "functions/describe.hpp"
#include "mcp/conversation_server.hpp"
#include "mcp/full_tools.hpp"
#include "support/cli_in_process.hpp"

namespace aw = agentworks;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using agentworks::unit::CliRun;
using agentworks::unit::run_cli_captured;

// A loopback HTTP server that answers each connection with the next canned answer (then closes it) and records the
// request it got.
class CannedServer {
 public:
  struct Request {
    std::string method;
    std::string path;
    std::string authorization;
    json body;
  };

  using Answers = std::vector<std::pair<int, json>>;  // HTTP status and body, in the order requests come
  explicit CannedServer(Answers answers) : answers_(std::move(answers)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedServer() {
    ::shutdown(fd_, SHUT_RDWR);  // ends a waiting accept
    thread_.join();
    ::close(fd_);
  }
  CannedServer(const CannedServer&) = delete;
  CannedServer& operator=(const CannedServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    for (const auto& [status, answer] : answers_) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string data;
      char buf[4096];
      std::size_t head_end = std::string::npos;
      std::size_t length = 0;
      while (true) {
        if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos) {
          const auto at = lowercase(data).find("content-length:");
          if (at != std::string::npos && at < head_end) length = std::stoul(data.substr(at + 15));
        }
        if (head_end != std::string::npos && data.size() >= head_end + 4 + length) break;
        const ssize_t n = ::read(client, buf, sizeof buf);
        if (n <= 0) break;
        data.append(buf, static_cast<std::size_t>(n));
      }
      record(data, head_end, length);
      const std::string body = answer.dump();
      const std::string response = "HTTP/1.1 " + std::to_string(status) +
                                   " X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                                   std::to_string(body.size()) + "\r\n\r\n" + body;
      EXPECT_EQ(::write(client, response.data(), response.size()), static_cast<ssize_t>(response.size()));
      ::close(client);
    }
  }

  static std::string lowercase(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  void record(const std::string& data, std::size_t head_end, std::size_t length) {
    if (head_end == std::string::npos) return;
    Request r;
    std::istringstream head(data.substr(0, head_end));
    head >> r.method >> r.path;
    std::string line;
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (lowercase(line).rfind("authorization:", 0) == 0) r.authorization = line.substr(line.find(':') + 2);
    }
    r.body = length > 0 ? json::parse(data.substr(head_end + 4, length), nullptr, false) : json();
    std::lock_guard lock(mutex_);
    requests_.push_back(std::move(r));
  }

  Answers answers_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Request> requests_;
};

const json kReceipt = {
    {"accepted", true}, {"message_id", "msg_1"}, {"conversation_id", "cnv_1"}, {"inbox_id", "inb_1"}};

json crew_with_agent() {
  return {{"crew_id", "crw_1"},
          {"crew_name", "api"},
          {"dir", "/srv/api"},
          {"running", 0},
          {"max_running", 3},
          {"functions", json::array()},
          {"agent", {{"runner", "claude"}, {"instructions", "You keep the API docs.\nSecond line."}}},
          {"messaging", false},
          {"messaging_source", "server"},
          {"conversations",
           json::array({{{"conversation_id", "cnv_2"},
                         {"inbox_id", "inb_2"},
                         {"initiator", {{"agent_name", "worker"}}},
                         {"turn", "running"},
                         {"turns", 3},
                         {"last_turn_at", 1764500000},
                         {"waiting", 1}},
                        {{"conversation_id", "cnv_1"},
                         {"inbox_id", "inb_1"},
                         {"initiator", {{"agent_name", nullptr}}},
                         {"turn", "idle"},
                         {"turns", 1},
                         {"last_turn_at", nullptr},
                         {"waiting", 0}}})}};
}

// A saved login pointing at `url`, in a folder of its own.
class CrewTalkCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aw-crew-talk-" + aw::random_hex(6));
    fs::create_directories(dir_);
    config_ = (dir_ / "config.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void log_in(const std::string& url) {
    aw::Config c;
    c.server_url = url;
    c.token = "login-token";
    aw::save_config(config_, c);
  }
  CliRun run(std::vector<std::string> args) {
    args.insert(args.end(), {"--config", config_});
    return run_cli_captured(std::move(args));
  }
  fs::path dir_;
  std::string config_;
};

void set_turn_environment(const std::string& server) {
  ::setenv("AGENTWORKS_SERVER", server.c_str(), 1);
  ::setenv("AGENTWORKS_CONVERSATION_ID", "cnv_7", 1);
  ::setenv("AGENTWORKS_TURN_TOKEN", "turn-secret", 1);
  ::unsetenv("AGENTWORKS_SERVER_CA_FILE");
}

void clear_turn_environment() {
  for (const char* name : {"AGENTWORKS_SERVER", "AGENTWORKS_CONVERSATION_ID", "AGENTWORKS_TURN_TOKEN",
                           "AGENTWORKS_SERVER_CA_FILE"})
    ::unsetenv(name);
}

// The JSON-RPC answers of a conversation server fed `requests`, one per line.
std::vector<json> converse_with_turn_server(const std::vector<json>& requests) {
  std::string input;
  for (const json& r : requests) input += r.dump() + "\n";
  std::istringstream in(input);
  std::ostringstream out;
  aw::cli::mcp::serve_conversation(in, out, aw::cli::mcp::conversation_binding());
  std::vector<json> answers;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) answers.push_back(json::parse(line));
  return answers;
}

json turn_rpc(int id, const std::string& method, const json& params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

TEST(CrewTarget, AgentAndCrewTargetsAreCheckedAndOthersPassThrough_RK1) {
  EXPECT_EQ(aw::cli::message_target("reviewer"), "agent:reviewer");
  EXPECT_EQ(aw::cli::message_target("agent:reviewer"), "agent:reviewer");
  EXPECT_EQ(aw::cli::message_target("crew:api"), "crew:api");
  for (const char* bad : {"crew:", "crew:a b", "agent:-x", "a b"}) {
    try {
      aw::cli::message_target(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const aw::Error& e) {
      EXPECT_EQ(e.code(), aw::ErrorCode::invalid_name) << bad;
    }
  }
}

TEST_F(CrewTalkCli, SendAndAskPostTheSameCrewTarget_RK1) {
  CannedServer server(CannedServer::Answers{{201, kReceipt}, {201, kReceipt}});
  log_in(server.url());
  const CliRun sent = run({"messages", "send", "--target", "crew:api", "--message", "Where are the docs?"});
  EXPECT_EQ(sent.code, 0) << sent.out << sent.err;
  const CliRun asked = run({"crews", "ask", "api", "--message", "Where are the docs?", "--agent", "worker",
                            "--submission-id", "s-1"});
  EXPECT_EQ(asked.code, 0) << asked.out << asked.err;
  EXPECT_NE(asked.out.find("agentworks messages read --agent worker --inbox inb_1"), std::string::npos) << asked.out;
  EXPECT_NE(asked.out.find("when and if it chooses"), std::string::npos) << asked.out;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& r : requests) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path, "/v1/messages");
    EXPECT_EQ(r.authorization, "Bearer login-token");
    EXPECT_EQ(r.body.at("target"), "crew:api") << r.body.dump();
    EXPECT_EQ(r.body.at("message"), "Where are the docs?");
  }
  EXPECT_EQ(requests[1].body.at("agent_name"), "worker");
  EXPECT_EQ(requests[1].body.at("submission_id"), "s-1");
}

TEST_F(CrewTalkCli, AskChecksTheCrewNameAndTheMessageBeforeTheLogin_RK1) {
  // No login is saved: a usage-class answer (2) rather than unauthenticated (3) proves the checks come first.
  const CliRun bad_name = run({"crews", "ask", "a b", "--message", "hi", "--json"});
  EXPECT_EQ(bad_name.code, 2) << bad_name.out << bad_name.err;
  EXPECT_EQ(json::parse(bad_name.out)["error"]["code"], "invalid_name");
  const CliRun empty = run({"crews", "ask", "api", "--message", " ", "--json"});
  EXPECT_EQ(empty.code, 2) << empty.out << empty.err;
  EXPECT_EQ(json::parse(empty.out)["error"]["code"], "invalid_message");
  const CliRun neither = run({"messages", "send", "--message", "hi", "--json"});
  EXPECT_EQ(neither.code, 2);
  const std::string message = json::parse(neither.out)["error"]["message"].get<std::string>();
  EXPECT_NE(message.find("agent:NAME"), std::string::npos) << message;
  EXPECT_NE(message.find("crew:NAME"), std::string::npos) << message;
}

TEST_F(CrewTalkCli, SetMessagingTakesOnOffOrFileAndNothingElse_RK3) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"crews", "set", "api", "--messaging", "yes", "--json"},
        std::vector<std::string>{"crews", "set", "api", "--json"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const json error = json::parse(r.out)["error"];
    EXPECT_EQ(error["code"], "usage");
    EXPECT_NE(error["message"].get<std::string>().find("on, off or file"), std::string::npos) << error.dump();
  }
  CannedServer server(
      CannedServer::Answers{{200, crew_with_agent()}, {200, crew_with_agent()}, {200, crew_with_agent()}});
  log_in(server.url());
  for (const char* value : {"on", "off", "file"}) EXPECT_EQ(run({"crews", "set", "api", "--messaging", value}).code, 0);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/v1/crews/api/messaging");
  EXPECT_EQ(requests[0].body, json({{"messaging", true}}));
  EXPECT_EQ(requests[1].body, json({{"messaging", false}}));
  EXPECT_EQ(requests[2].body, json({{"messaging", nullptr}})) << "file returns to the crew.json's value";
}

TEST_F(CrewTalkCli, ShowPrintsTheAgentTheSwitchAndTheConversations_RK1_RK2_RK3) {
  CannedServer server(CannedServer::Answers{{200, crew_with_agent()}, {200, crew_with_agent()}});
  log_in(server.url());
  const CliRun shown = run({"crews", "show", "api"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("agent: claude: You keep the API docs."), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("Second line"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("messaging: off (set on the server"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("INBOX"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("WAITING"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("agent:worker"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("running"), std::string::npos) << shown.out;
  EXPECT_LT(shown.out.find("inb_2"), shown.out.find("inb_1")) << "newest first, as the server lists them";
  const CliRun as_json = run({"crews", "show", "api", "--json"});
  EXPECT_EQ(json::parse(as_json.out), crew_with_agent());
}

TEST(CrewDescribe, ACrewWithoutAgentSaysHowToDeclareOne_RK1) {
  json crew = crew_with_agent();
  crew["agent"] = nullptr;
  const std::string text = aw::cli::functions::describe_crew(crew);
  EXPECT_NE(text.find("agent: none"), std::string::npos) << text;
  EXPECT_NE(text.find(".agentworks/crew.json"), std::string::npos) << text;
  crew.erase("agent");  // a server without Crew agents: nothing is said
  EXPECT_EQ(aw::cli::functions::describe_crew(crew).find("agent:"), std::string::npos);
}

TEST(FullConnection, TheMessagesToolAsksACrew_RK1) {
  CannedServer server(CannedServer::Answers{{201, kReceipt}});
  const auto login = [&server] {
    aw::Config c;
    c.server_url = server.url();
    c.token = "login-token";
    return c;
  };
  const json tools = aw::cli::mcp::full_tool_list()["tools"];
  json send;
  json ask;
  for (const json& t : tools) {
    if (t["name"] == "messages_send") send = t;
    if (t["name"] == "messages_ask_crew") ask = t;
  }
  ASSERT_TRUE(ask.is_object()) << tools.dump();
  EXPECT_EQ(ask["inputSchema"]["required"], json::array({"crew", "message"})) << ask.dump();
  EXPECT_NE(send["inputSchema"]["properties"]["target"]["description"].get<std::string>().find("crew:NAME"),
            std::string::npos);

  const json refused =
      aw::cli::mcp::call_full_tool("messages_ask_crew", {{"crew", "api"}, {"target", "x"}}, login);
  EXPECT_TRUE(refused["isError"].get<bool>());
  EXPECT_EQ(refused["structuredContent"]["error"]["code"], "bad_request") << refused.dump();

  const json asked =
      aw::cli::mcp::call_full_tool("messages_ask_crew", {{"crew", "api"}, {"message", "hi"}}, login);
  EXPECT_FALSE(asked["isError"].get<bool>()) << asked.dump();
  EXPECT_EQ(asked["structuredContent"]["inbox_id"], "inb_1");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].body, json({{"target", "crew:api"}, {"message", "hi"}}));
}

TEST(ConversationServer, WithoutItsEnvironmentItRefusesToStartNamingTheVariable_RK2) {
  clear_turn_environment();
  CliRun r = run_cli_captured({"mcp", "serve", "--conversation", "--json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(json::parse(r.out)["error"]["message"].get<std::string>().find("AGENTWORKS_SERVER"), std::string::npos)
      << r.out;
  ::setenv("AGENTWORKS_SERVER", "http://127.0.0.1:1", 1);
  ::setenv("AGENTWORKS_CONVERSATION_ID", "cnv_7", 1);
  r = run_cli_captured({"mcp", "serve", "--conversation", "--json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(json::parse(r.out)["error"]["message"].get<std::string>().find("AGENTWORKS_TURN_TOKEN"),
            std::string::npos)
      << r.out;
  r = run_cli_captured({"mcp", "serve", "--conversation", "--call", "--json"});
  EXPECT_EQ(r.code, 2) << "a conversation's server is not a call's";
  clear_turn_environment();
}

TEST(ConversationServer, ListsItsSpeakingAndWakeupToolsOverStdio_RK2) {
  set_turn_environment("http://127.0.0.1:1");
  const auto answers = converse_with_turn_server(
      {turn_rpc(1, "initialize", {{"protocolVersion", "2025-06-18"}}), turn_rpc(2, "tools/list"),
       turn_rpc(3, "tools/call", {{"name", "request_input"}, {"arguments", json::object()}})});
  clear_turn_environment();
  ASSERT_EQ(answers.size(), 3u);
  const json init = answers[0]["result"];
  EXPECT_EQ(init["serverInfo"]["name"], "agentworks");
  EXPECT_EQ(init["protocolVersion"], "2025-06-18");
  const std::string instructions = init["instructions"].get<std::string>();
  EXPECT_NE(instructions.find("only way to answer is the send_message tool"), std::string::npos) << instructions;
  EXPECT_NE(instructions.find("no_reply"), std::string::npos) << instructions;
  const json tools = answers[1]["result"]["tools"];
  ASSERT_EQ(tools.size(), 10u) << tools.dump();
  EXPECT_EQ(tools[0]["name"], "send_message");
  EXPECT_NE(tools[0]["description"].get<std::string>().find("reads only what you send"), std::string::npos);
  EXPECT_EQ(tools[0]["inputSchema"]["required"], json::array({"text"}));
  EXPECT_EQ(tools[1]["name"], "no_reply");
  EXPECT_NE(tools[1]["description"].get<std::string>().find("need no answer from you"), std::string::npos);
  EXPECT_EQ(tools[2]["name"], "schedule_message_wakeup");
  EXPECT_NE(tools[2]["description"].get<std::string>().find("in this conversation"), std::string::npos);
  EXPECT_EQ(tools[3]["name"], "cancel_message_wakeup");
  EXPECT_EQ(tools[4]["name"], "list_message_wakeups");
  EXPECT_EQ(tools[6]["name"], "call_function");
  EXPECT_NE(tools[6]["description"].get<std::string>().find("start a new turn of this conversation"),
            std::string::npos)
      << tools[6].dump();
  EXPECT_FALSE(tools[6]["inputSchema"]["properties"].contains("notify")) << "its conversation is always told";
  EXPECT_EQ(answers[2]["error"]["code"], -32602) << "a call's tools are not a conversation's";
}

TEST(ConversationServer, SpeaksThroughTheTurnRoutesWithTheTurnSecret_RK2) {
  CannedServer server(CannedServer::Answers{{201, {{"message_id", "msg_9"}, {"inbox_id", "inb_7"}}},
                       {200, {{"declined", 2}}},
                       {401, {{"error", {{"code", "unauthenticated"}, {"message", "the turn ended"}}}}}});
  set_turn_environment(server.url());
  const auto answers = converse_with_turn_server(
      {turn_rpc(1, "tools/call", {{"name", "send_message"}, {"arguments", {{"text", "Here are the docs."}}}}),
       turn_rpc(2, "tools/call", {{"name", "no_reply"}, {"arguments", {{"reason", "thanks only"}}}}),
       turn_rpc(3, "tools/call", {{"name", "send_message"}, {"arguments", {{"message", "wrong field"}}}}),
       turn_rpc(4, "tools/call", {{"name", "send_message"}, {"arguments", {{"text", "too late"}}}})});
  clear_turn_environment();
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_FALSE(answers[0]["result"]["isError"].get<bool>()) << answers[0].dump();
  EXPECT_NE(answers[0]["result"]["content"][0]["text"].get<std::string>().find("msg_9"), std::string::npos);
  EXPECT_FALSE(answers[0]["result"].contains("structuredContent")) << "Claude Code would show it instead of the text";
  EXPECT_FALSE(answers[1]["result"]["isError"].get<bool>()) << answers[1].dump();
  EXPECT_NE(answers[1]["result"]["content"][0]["text"].get<std::string>().find("2 messages"), std::string::npos);
  EXPECT_TRUE(answers[2]["result"]["isError"].get<bool>());
  EXPECT_EQ(answers[2]["result"]["structuredContent"]["error"]["code"], "bad_request");
  EXPECT_TRUE(answers[3]["result"]["isError"].get<bool>());
  EXPECT_EQ(answers[3]["result"]["structuredContent"]["error"]["code"], "unauthenticated");
  EXPECT_NE(answers[3]["result"]["content"][0]["text"].get<std::string>().find("turn has ended"), std::string::npos);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u) << "a bad argument never reaches the server";
  EXPECT_EQ(requests[0].path, "/v1/turns/cnv_7/messages");
  EXPECT_EQ(requests[0].body.value("text", ""), "Here are the docs.");
  EXPECT_EQ(requests[0].body.value("submission_id", "").rfind("sub_", 0), 0u) << requests[0].body.dump();
  EXPECT_EQ(requests[1].path, "/v1/turns/cnv_7/no-reply");
  EXPECT_EQ(requests[1].body, json({{"reason", "thanks only"}}));
  for (const auto& r : requests) EXPECT_EQ(r.authorization, "Bearer turn-secret");
}

// R-M2 with R-X6: a send whose outcome is unknown is retried once under the same submission id, so the server
// stores it at most once; still unknown, the agent is told it may already be visible and not to repeat it.
TEST(ConversationServer, AnUnknownSendIsRetriedOnceUnderOneSubmissionId_RK2_RX6) {
  const json unavailable = {{"error", {{"code", "unavailable"}, {"message", "the store did not answer"}}}};
  CannedServer server(CannedServer::Answers{{503, unavailable},
                                            {201, {{"message_id", "msg_9"}, {"inbox_id", "inb_7"}}},
                                            {503, unavailable},
                                            {503, unavailable}});
  set_turn_environment(server.url());
  const auto answers = converse_with_turn_server(
      {turn_rpc(1, "tools/call", {{"name", "send_message"}, {"arguments", {{"text", "First."}}}}),
       turn_rpc(2, "tools/call", {{"name", "send_message"}, {"arguments", {{"text", "Second."}}}})});
  clear_turn_environment();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_FALSE(answers[0]["result"]["isError"].get<bool>()) << answers[0].dump();
  EXPECT_TRUE(answers[1]["result"]["isError"].get<bool>()) << answers[1].dump();
  const std::string text = answers[1]["result"]["content"][0]["text"].get<std::string>();
  EXPECT_NE(text.find("may already be visible"), std::string::npos) << text;
  EXPECT_NE(text.find("could double it"), std::string::npos) << text;

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].body.at("submission_id"), requests[1].body.at("submission_id")) << "the retry is the same send";
  EXPECT_EQ(requests[2].body.at("submission_id"), requests[3].body.at("submission_id"));
  EXPECT_NE(requests[0].body.at("submission_id"), requests[2].body.at("submission_id")) << "a new send, a new id";
  EXPECT_NE(text.find(requests[2].body.at("submission_id").get<std::string>()), std::string::npos) << text;
}

// R-W1 for a Crew's agent: its wakeup tools go to its conversation's turn routes with the turn's secret.
TEST(ConversationServer, ItsWakeupsGoThroughTheTurnRoutes_RK2_RW1) {
  const json wakeup = {{"wakeup_id", "wku_1"}, {"state", "pending"}, {"due_at", 1798000000}, {"note", "check CI"}};
  json cancelled = wakeup;
  cancelled["state"] = "cancelled";
  CannedServer server(CannedServer::Answers{
      {200, wakeup}, {200, {{"agent_name", "crew:api"}, {"paused", false}, {"wakeups", json::array({wakeup})}}},
      {200, cancelled}});
  set_turn_environment(server.url());
  const auto answers = converse_with_turn_server(
      {turn_rpc(1, "tools/call",
                {{"name", "schedule_message_wakeup"}, {"arguments", {{"after_minutes", 30}, {"note", "check CI"}}}}),
       turn_rpc(2, "tools/call", {{"name", "list_message_wakeups"}, {"arguments", json::object()}}),
       turn_rpc(3, "tools/call", {{"name", "cancel_message_wakeup"}, {"arguments", {{"wakeup_id", "wku_1"}}}}),
       turn_rpc(4, "tools/call", {{"name", "schedule_message_wakeup"}, {"arguments", {{"agent_name", "x"}}}})});
  clear_turn_environment();
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_NE(answers[0]["result"]["content"][0]["text"].get<std::string>().find("Scheduled: wku_1"), std::string::npos)
      << answers[0].dump();
  EXPECT_NE(answers[1]["result"]["content"][0]["text"].get<std::string>().find("crew:api: 1"), std::string::npos)
      << answers[1].dump();
  EXPECT_NE(answers[2]["result"]["content"][0]["text"].get<std::string>().find("Cancelled"), std::string::npos);
  EXPECT_TRUE(answers[3]["result"]["isError"].get<bool>()) << "no agent can be named: the turn's conversation only";
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/v1/turns/cnv_7/wakeups");
  EXPECT_EQ(requests[0].body, json({{"after_minutes", 30}, {"note", "check CI"}}));
  EXPECT_EQ(requests[1].path, "/v1/turns/cnv_7/wakeups");
  EXPECT_EQ(requests[2].path, "/v1/turns/cnv_7/wakeups/wku_1/cancel");
  for (const auto& r : requests) EXPECT_EQ(r.authorization, "Bearer turn-secret");
}

}  // namespace
