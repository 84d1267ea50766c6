// R-D5: `agentworks mcp serve --full` speaking the stateless revision (2026-07-28) as Claude Code does, line by
// line over its stdio against a real agentworks-server: server/discover, every request carrying its version and the
// client's capabilities in _meta; a `functions_call` from a client that declares the tasks extension is
// answered as a task whose id is the call_id, followed with tasks/get to working, input_required (answered with
// tasks/update through the reply route), completed (isError when the function failed) and cancelled
// (tasks/cancel); a client without the extension gets the plain result. The legacy handshake is mcp_full_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>

#include "support/crew_folder.hpp"
#include "support/mcp_driver.hpp"
#include "support/messaging_fixture.hpp"
#include "testing/binaries.hpp"
#include "testing/piped_process.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const json kClientCaps = {{"elicitation", {{"form", json::object()}}},
                          {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}};

class McpTasksTest : public MessagingTest {
 protected:
  void SetUp() override {
    start_server();
    crew_ = std::make_unique<CrewFolder>(fs::weakly_canonical(home_.path("crew-api")));
    declare_client_functions(*crew_, cli_binary());
    std::vector<json> functions = json::parse(read_declaration())["functions"].get<std::vector<json>>();
    functions.push_back(CrewFolder::function("fails", crew_->script("fails.sh", "echo broken >&2\nexit 3")));
    functions.push_back(CrewFolder::function("hold", crew_->script("hold.sh", "exec sleep 300")));
    crew_->declare(functions);
    cli_ok(owner(), {"crews", "register", "api", "--dir", crew_->dir().string()});
    server_ = std::make_unique<PipedProcess>(std::vector<std::string>{cli_binary(), "mcp", "serve", "--full"},
                                             home_.env(), fs::path(), home_.path("mcp-tasks.err"));
  }
  void TearDown() override {
    if (HasFailure() && server_) std::cerr << "=== transcript ===\n" << server_->transcript() << "\n";
    server_.reset();
    MessagingTest::TearDown();
  }
  std::string read_declaration() const {
    std::ifstream in(crew_->dir() / ".agentworks" / "functions.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // One request with the stateless _meta (with or without the tasks extension); its whole response.
  json request(const std::string& method, json params, bool tasks = true) {
    json caps = kClientCaps;
    if (!tasks) caps.erase("extensions");
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}},
                       {"io.modelcontextprotocol/clientCapabilities", caps}};
    const int id = ++next_id_;
    EXPECT_TRUE(server_->write_line(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump()));
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (auto line = server_->read_line(deadline)) {
      const json message = json::parse(*line);
      if (message.value("id", json()) == json(id)) return message;
    }
    throw std::runtime_error("no answer to " + method);
  }
  json result_of(const std::string& method, const json& params, bool tasks = true) {
    const json r = request(method, params, tasks);
    if (!r.contains("result")) throw std::runtime_error(method + " failed: " + r.dump());
    return r["result"];
  }
  json call(const std::string& function, const json& arguments, bool tasks = true) {
    return result_of("tools/call", {{"name", "functions_call"},
                                    {"arguments", {{"target", "api"}, {"function", function},
                                                   {"arguments", arguments}}}},
                     tasks);
  }
  // tasks/get until the task's status is one of `until`.
  json poll(const std::string& task_id, const std::set<std::string>& until) {
    json task;
    const bool reached = wait_until(
        [&] {
          task = result_of("tasks/get", {{"taskId", task_id}});
          return until.count(task.value("status", "")) > 0;
        },
        60s, 100ms);
    if (!reached) throw std::runtime_error("task " + task_id + " stayed " + task.dump());
    return task;
  }

  std::unique_ptr<CrewFolder> crew_;
  std::unique_ptr<PipedProcess> server_;
  int next_id_ = 0;
};

// The handshake Claude Code opens with, and the plain answers of the stateless revision.
TEST_F(McpTasksTest, DiscoverOffersTheTasksExtension_R_D5) {
  const json discovered = result_of("server/discover", json::object());
  EXPECT_EQ(discovered["supportedVersions"], json::array({"2026-07-28"})) << discovered.dump();
  EXPECT_TRUE(discovered["capabilities"]["extensions"].contains("io.modelcontextprotocol/tasks")) << discovered.dump();
  EXPECT_EQ(discovered["resultType"], "complete");
  const json tools = result_of("tools/list", json::object());
  EXPECT_EQ(tools["resultType"], "complete");
  EXPECT_EQ(tools["ttlMs"], 0);
  EXPECT_EQ(tools["tools"].size(), 17u);  // one per action (McpFullTest names them)
}

// A call becomes a task that ends completed with the function's result; without the extension the same call is a
// plain tool result naming the call.
TEST_F(McpTasksTest, ACallIsATaskThatEndsWithItsResult_R_D5) {
  const json task = call("echo", {{"text", "hi"}});
  EXPECT_EQ(task["resultType"], "task") << task.dump();
  const std::string id = task["taskId"];
  EXPECT_EQ(id.rfind("call_", 0), 0u) << id;
  EXPECT_TRUE(task["status"] == "working" || task["status"] == "completed") << task.dump();
  const json done = poll(id, {"completed", "failed", "cancelled"});
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["result"]["isError"], false) << done.dump();
  EXPECT_NE(text_of(done["result"]).find("got: {\"text\":\"hi\"}"), std::string::npos) << done.dump();
  EXPECT_EQ(cli_ok(owner(), {"functions", "call-status", "--call", id}).at("status"), "completed")
      << "the task is the call record";

  const json plain = call("echo", {{"text", "plain"}}, /*tasks=*/false);
  EXPECT_EQ(plain["resultType"], "complete") << plain.dump();
  EXPECT_FALSE(plain.contains("taskId")) << plain.dump();
  EXPECT_EQ(plain["structuredContent"]["call_id"].get<std::string>().rfind("call_", 0), 0u) << plain.dump();

  // A refusal stays a tool error, never a task.
  const json refused = call("nope", json::object());
  EXPECT_EQ(refused["isError"], true) << refused.dump();
  EXPECT_FALSE(refused.contains("taskId")) << refused.dump();
}

// The function's own failure is a completed task marked isError, not a protocol failure.
TEST_F(McpTasksTest, AFailedFunctionIsACompletedTaskWithIsError_R_D5) {
  const std::string id = call("fails", {{"text", "x"}})["taskId"];
  const json done = poll(id, {"completed", "failed", "cancelled"});
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["result"]["isError"], true) << done.dump();
  EXPECT_NE(text_of(done["result"]).find("status failed"), std::string::npos) << done.dump();
}

// The execution's question is input_required with an elicitation form; tasks/update answers it through the reply
// route and the call goes on to its result. A response for a question the call does not have changes nothing.
TEST_F(McpTasksTest, AQuestionIsInputRequiredAndTasksUpdateAnswersIt_R_D5) {
  const std::string id = call("ask", {{"text", "x"}})["taskId"];
  const json asking = poll(id, {"input_required"});
  ASSERT_EQ(asking["inputRequests"].size(), 1u) << asking.dump();
  const std::string request_id = asking["inputRequests"].begin().key();
  const json& form = asking["inputRequests"][request_id];
  EXPECT_EQ(form["method"], "elicitation/create");
  EXPECT_EQ(form["params"]["message"], "Which branch?");

  const json wrong = request("tasks/update", {{"taskId", id},
                                              {"inputResponses", {{"req_unknown", {{"action", "accept"},
                                                                                  {"content", {{"answer", "x"}}}}}}}});
  EXPECT_EQ(wrong["error"]["code"], -32602) << wrong.dump();
  EXPECT_EQ(result_of("tasks/get", {{"taskId", id}})["status"], "input_required") << "nothing was answered";

  result_of("tasks/update",
            {{"taskId", id}, {"inputResponses", {{request_id, {{"action", "accept"}, {"content", {{"answer", "main"}}}}}}}});
  const json done = poll(id, {"completed", "failed", "cancelled"});
  EXPECT_NE(text_of(done["result"]).find("branch: main"), std::string::npos) << done.dump();
}

// tasks/cancel ends a running call as cancelled (the call record says so); cancelling an ended task changes
// nothing; unknown or missing task ids are protocol errors.
TEST_F(McpTasksTest, TasksCancelEndsTheCall_R_D5_R_D3) {
  const std::string id = call("hold", {{"text", "x"}})["taskId"];
  result_of("tasks/cancel", {{"taskId", id}});
  const json ended = poll(id, {"completed", "failed", "cancelled"});
  EXPECT_EQ(ended["status"], "cancelled") << ended.dump();
  EXPECT_EQ(cli_ok(owner(), {"functions", "call-status", "--call", id}).at("status"), "cancelled");

  const std::string finished = call("echo", {{"text", "y"}})["taskId"];
  poll(finished, {"completed"});
  EXPECT_EQ(result_of("tasks/cancel", {{"taskId", finished}})["status"], "completed") << "an outcome stays";

  EXPECT_EQ(request("tasks/get", {{"taskId", "call_000000000000000000000000"}})["error"]["code"], -32602);
  EXPECT_EQ(request("tasks/get", json::object())["error"]["code"], -32602);
  EXPECT_EQ(request("tasks/update", {{"taskId", id}})["error"]["code"], -32602);
}

}  // namespace
}  // namespace agentworks::testing
