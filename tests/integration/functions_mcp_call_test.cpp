// `agentworks mcp serve --call` (R-F3 pending inputs over MCP): the stdio server an agent execution gets, bound to
// its call by the execution's environment. The real MCP SDK client (tests/mcp/driver.mjs) starts it with the
// AGENTWORKS_CALL_ID / AGENTWORKS_CALL_TOKEN a running command-function call wrote to its output folder, as an
// agent CLI would inside that execution: request_input makes the call waiting_input with the question, the caller
// answers with `functions reply`, and the answer is the tool's result. A closed call is a tool error, never a hang;
// without the environment the server refuses to start.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "support/mcp_driver.hpp"
#include "support/crew_fixture.hpp"
#include "testing/binaries.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

// Writes its call's id and secret into its output folder, then holds the call open until `done` appears there.
const char* const kHoldingScript =
    "printf '%s' \"$AGENTWORKS_CALL_ID\" > \"$FUNCTION_OUTPUT_DIR/call-id.tmp\"\n"
    "printf '%s' \"$AGENTWORKS_CALL_TOKEN\" > \"$FUNCTION_OUTPUT_DIR/call-token\"\n"
    "mv \"$FUNCTION_OUTPUT_DIR/call-id.tmp\" \"$FUNCTION_OUTPUT_DIR/call-id\"\n"
    "while [ ! -e \"$FUNCTION_OUTPUT_DIR/done\" ]; do sleep 0.05; done\n"
    "echo released";

class FunctionsMcpCall : public CrewTest {
 protected:
  void SetUp() override {
    CrewTest::SetUp();
    const auto missing = mcp_client_missing();
    ASSERT_TRUE(missing.empty()) << missing;
    start_server();
    make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", kHoldingScript}});
  }
  void TearDown() override {
    if (HasFailure() && driver_) std::cerr << "=== MCP driver stderr ===\n" << driver_->stderr_text() << "\n";
    driver_.reset();
    CrewTest::TearDown();
  }

  // Starts a held call; returns its id once the execution wrote its environment.
  std::string start_held_call() {
    const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
    EXPECT_TRUE(wait_file(call_dir("api", id) / "call-id")) << "the execution did not write its environment";
    return id;
  }
  json execution_env(const std::string& id) {
    return {{"AGENTWORKS_CALL_ID", read_file(call_dir("api", id) / "call-id")},
            {"AGENTWORKS_CALL_TOKEN", read_file(call_dir("api", id) / "call-token")},
            {"AGENTWORKS_SERVER", server_->url()}};
  }
  // The SDK client connected to `agentworks mcp serve --call` with the execution's environment.
  void start_call_server(const json& env) {
    driver_ = std::make_unique<McpDriver>(home_.env(), home_.path("mcp-call-driver.err"));
    const json started = driver_->start({cli_binary(), "mcp", "serve", "--call"}, env);
    EXPECT_EQ(started.at("serverVersion").at("name"), "agentworks") << started.dump();
  }

  std::unique_ptr<McpDriver> driver_;
};

// R-F3: one tool, request_input; the call waits with the question; `functions reply` answers it and the answer is
// the tool's text result; the execution goes on and completes.
TEST_F(FunctionsMcpCall, RequestInputWaitsForTheReply_R_F3) {
  const std::string id = start_held_call();
  start_call_server(execution_env(id));

  const json tools = driver_->ok({{"op", "list"}}).at("tools");
  ASSERT_EQ(tools.size(), 6u) << "request_input and the five function tools (R-D4): " << tools.dump();
  EXPECT_EQ(tools[0].at("name"), "request_input");
  EXPECT_EQ(tools[0].at("inputSchema").at("required"), json::array({"question"})) << tools.dump();
  EXPECT_NE(tools[0].at("description").get<std::string>().find("instead of asking in chat"), std::string::npos);

  const int asked = driver_->send({{"op", "call"}, {"name", "request_input"},
                                   {"arguments", {{"question", "Which branch should I review?"}}}});
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_EQ(waiting.at("pending_inputs").size(), 1u) << waiting.dump();
  EXPECT_EQ(waiting.at("pending_inputs")[0].at("question"), "Which branch should I review?");
  EXPECT_TRUE(waiting.at("pending_inputs")[0].at("schema").is_null()) << waiting.dump();
  const std::string request = waiting.at("pending_inputs")[0].at("request_id").get<std::string>();

  cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "release-2.4"});
  const json answer = driver_->await(asked);
  ASSERT_TRUE(answer.value("ok", false)) << answer.dump();
  EXPECT_FALSE(answer["result"].value("isError", false)) << answer.dump();
  EXPECT_EQ(text_of(answer["result"]), "release-2.4") << answer.dump();

  const json running = wait_status(id, [](const json& c) { return c.value("status", "") == "running"; });
  EXPECT_TRUE(running.at("pending_inputs").empty()) << running.dump();
  write_text(call_dir("api", id) / "done", "");
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
}

// R-D4: an agent execution's MCP server calls functions as the execution: the child names the call as its
// caller, the execution reads it, cannot ask for notices, and reaches no call it did not make.
TEST_F(FunctionsMcpCall, AnAgentExecutionCallsFunctionsAsItsCall_R_D4) {
  make_crew("tools", json::array({function_decl("echo")}), {{"tools/echo.sh", "echo tool says hi"}});
  const std::string id = start_held_call();
  start_call_server(execution_env(id));
  const json listed = driver_->call("list_functions", {{"target", "tools"}});
  ASSERT_TRUE(listed.value("ok", false)) << listed.dump();
  EXPECT_EQ(listed["result"]["structuredContent"]["functions"].size(), 1u) << listed.dump();
  const json made = driver_->call("call_function", {{"target", "tools"}, {"function", "echo"}, {"arguments", json::object()}});
  ASSERT_FALSE(made["result"].value("isError", true)) << made.dump();
  const std::string child = made["result"]["structuredContent"]["call_id"];
  EXPECT_EQ(made["result"]["structuredContent"]["parent_call_id"], id);
  json read;
  ASSERT_TRUE(wait_until([&] {
    read = driver_->call("get_function_call", {{"call_id", child}});
    return read["result"]["structuredContent"].value("status", "") == "completed";
  })) << read.dump();
  EXPECT_NE(text_of(read["result"]).find("tool says hi"), std::string::npos) << read.dump();
  const json notify = driver_->call("call_function", {{"target", "tools"}, {"function", "echo"},
                                                      {"arguments", json::object()}, {"notify", true}});
  EXPECT_TRUE(notify["result"].value("isError", false)) << "an execution cannot ask for notices: " << notify.dump();
  const json foreign = driver_->call("get_function_call", {{"call_id", id}});
  EXPECT_EQ(foreign["result"]["structuredContent"]["error"]["code"], "not_found") << foreign.dump();
  write_text(call_dir("api", id) / "done", "");
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
}

// R-F3: a question with a schema through request_input reaches pending_inputs[].schema; the JSON answer comes back.
TEST_F(FunctionsMcpCall, RequestInputWithASchema_R_F3) {
  const std::string id = start_held_call();
  start_call_server(execution_env(id));
  const json schema = {{"type", "object"},
                       {"properties", {{"approve", {{"type", "boolean"}}}}},
                       {"required", json::array({"approve"})}};
  const int asked = driver_->send({{"op", "call"}, {"name", "request_input"},
                                   {"arguments", {{"question", "Merge it?"}, {"schema", schema}}}});
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_EQ(waiting.at("pending_inputs").size(), 1u) << waiting.dump();
  EXPECT_EQ(waiting.at("pending_inputs")[0].at("schema"), schema) << waiting.dump();
  const std::string request = waiting.at("pending_inputs")[0].at("request_id").get<std::string>();
  cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "{\"approve\":true}"});
  const json answer = driver_->await(asked);
  ASSERT_TRUE(answer.value("ok", false)) << answer.dump();
  EXPECT_EQ(json::parse(text_of(answer["result"])), json({{"approve", true}})) << answer.dump();
  write_text(call_dir("api", id) / "done", "");
}

// R-F3: once the call has finished, request_input answers a tool error saying so, at once.
TEST_F(FunctionsMcpCall, FinishedCallIsAToolError_R_F3) {
  const std::string id = start_held_call();
  const json env = execution_env(id);
  write_text(call_dir("api", id) / "done", "");
  ASSERT_EQ(wait_terminal(id).at("status"), "completed");
  start_call_server(env);
  const auto started = std::chrono::steady_clock::now();
  const json r = driver_->call("request_input", {{"question", "Still there?"}});
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  EXPECT_TRUE(r["result"].value("isError", false)) << r.dump();
  EXPECT_NE(text_of(r["result"]).find("no longer open"), std::string::npos) << r.dump();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  // Bad arguments are tool errors too, so the model can correct them.
  const json bad = driver_->call("request_input", {{"question", ""}});
  EXPECT_TRUE(bad["result"].value("isError", false)) << bad.dump();
}

// R-F3: without the execution's environment the server does not start: a clear error naming the variable.
TEST_F(FunctionsMcpCall, MissingEnvironmentRefused_R_F3) {
  for (const char* missing : {"AGENTWORKS_CALL_ID", "AGENTWORKS_CALL_TOKEN", "AGENTWORKS_SERVER"}) {
    EnvOverrides env = home_.env();
    env["AGENTWORKS_CALL_ID"] = "call_x";
    env["AGENTWORKS_CALL_TOKEN"] = "secret";
    env["AGENTWORKS_SERVER"] = server_->url();
    env[missing] = std::nullopt;
    const CliResult r = run_cli({"mcp", "serve", "--call"}, env, std::string());
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.describe();
    EXPECT_TRUE(r.out.empty()) << "stdout belongs to the protocol: " << r.describe();
  }
}

}  // namespace
}  // namespace agentworks::testing
