// The task a call is on the full connection (R-D5): each call status and its MCP task status, and which requests
// count as the stateless revision or as a client that takes tasks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mcp/full_tasks.hpp"

using nlohmann::json;
namespace mcp = agentworks::cli::mcp;

namespace {

json call_with(const std::string& status, const json& error = nullptr) {
  return {{"call_id", "call_0123456789abcdef01234567"},
          {"crew_name", "api"},
          {"function", "review"},
          {"status", status},
          {"progress", nullptr},
          {"created_at", 1764500000},
          {"updated_at", 1764500060},
          {"answer", status == "completed" ? json("done") : json(nullptr)},
          {"error", error},
          {"pending_inputs", json::array()},
          {"messages", json::array()},
          {"events", json::array()}};
}

TEST(McpTasks, EachCallStatusIsItsTaskStatus_R_D5) {
  EXPECT_EQ(mcp::task_of_call(call_with("running"))["status"], "working");
  const json done = mcp::task_of_call(call_with("completed"));
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["result"]["isError"], false);
  EXPECT_NE(done["result"]["content"][0]["text"].get<std::string>().find("done"), std::string::npos) << done.dump();
  EXPECT_EQ(done["taskId"], "call_0123456789abcdef01234567");
  EXPECT_EQ(done["createdAt"], "2025-11-30T10:53:20Z");
  EXPECT_EQ(done["lastUpdatedAt"], "2025-11-30T10:54:20Z");

  // The function ran and failed: a result, marked isError.
  const json failed = mcp::task_of_call(call_with("failed", {{"code", "exit_status"}, {"message", "exit 3"}}));
  EXPECT_EQ(failed["status"], "completed");
  EXPECT_EQ(failed["result"]["isError"], true);
  // It could not run, or its server stopped under it: the task failed.
  const json unstarted = mcp::task_of_call(call_with("failed", {{"code", "spawn_failed"}, {"message", "no such file"}}));
  EXPECT_EQ(unstarted["status"], "failed");
  EXPECT_NE(unstarted["error"]["message"].get<std::string>().find("no such file"), std::string::npos);
  const json interrupted = mcp::task_of_call(call_with("interrupted", {{"code", "interrupted"}, {"message", ""}}));
  EXPECT_EQ(interrupted["status"], "failed");
  EXPECT_EQ(interrupted["error"]["data"]["status"], "interrupted");
  EXPECT_EQ(mcp::task_of_call(call_with("cancelled"))["status"], "cancelled");
  EXPECT_FALSE(mcp::task_of_call(call_with("cancelled")).contains("result"));

  json waiting = call_with("waiting_input");
  waiting["pending_inputs"] = json::array({{{"request_id", "req_1"}, {"question", "Which branch?"}, {"schema", nullptr}}});
  const json asks = mcp::task_of_call(waiting);
  EXPECT_EQ(asks["status"], "input_required");
  EXPECT_EQ(asks["inputRequests"]["req_1"]["method"], "elicitation/create");
  EXPECT_EQ(asks["inputRequests"]["req_1"]["params"]["message"], "Which branch?");
  EXPECT_EQ(asks["inputRequests"]["req_1"]["params"]["requestedSchema"]["required"], json::array({"answer"}));

  EXPECT_EQ(mcp::task_created(call_with("running"))["resultType"], "task");
}

TEST(McpTasks, OnlyARequestThatDeclaresTheExtensionTakesTasks_R_D5) {
  const json caps = {{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}};
  const json with = {{"_meta",
                      {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", caps}}}};
  EXPECT_TRUE(mcp::client_takes_tasks(with));
  EXPECT_TRUE(mcp::stateless_request(with));
  const json without = {{"_meta",
                         {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", json::object()}}}}}};
  EXPECT_FALSE(mcp::client_takes_tasks(without));
  EXPECT_TRUE(mcp::stateless_request(without));
  for (const json& legacy : {json::object(), json{{"_meta", nullptr}}, json{{"_meta", {{"progressToken", 2}}}},
                             json("text"), json(nullptr)}) {
    EXPECT_FALSE(mcp::client_takes_tasks(legacy)) << legacy.dump();
    EXPECT_FALSE(mcp::stateless_request(legacy)) << legacy.dump();
  }
}

}  // namespace
