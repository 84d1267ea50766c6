// The client side of structured functions without a server (R-F1, R-F3, R-F4): request paths and their range
// checks, the bytes of text and binary file pages, the human text of a Call (never "finished" before a terminal status),
// `--args` refused before anything is sent, and `functions ask` outside an execution.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "support/cli_in_process.hpp"
#include "functions/file_download.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"

namespace aw = agentworks;
namespace fn = agentworks::cli::functions;
using nlohmann::json;

namespace {

using agentworks::unit::CliRun;
using agentworks::unit::run_cli_captured;

aw::ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aw::Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no Error thrown";
  return aw::ErrorCode::internal;
}

}  // namespace

TEST(CliFunctionsRoutes, StatusPathCarriesOnlyTheGivenFields_RF3) {
  EXPECT_EQ(fn::status_path("call_1", {}), "/v1/calls/call_1");
  fn::StatusQuery q;
  q.after = -1;
  q.message_limit = 10;
  q.after_event = 3;
  q.wait_seconds = 25;
  EXPECT_EQ(fn::status_path("call_1", q), "/v1/calls/call_1?after=-1&message_limit=10&after_event=3&wait_seconds=25");
  q.message_limit = 501;
  EXPECT_EQ(code_of([&] { fn::status_path("call_1", q); }), aw::ErrorCode::bad_request);
  q.message_limit = std::nullopt;
  q.wait_seconds = 26;
  EXPECT_EQ(code_of([&] { fn::status_path("call_1", q); }), aw::ErrorCode::bad_request);
}

TEST(CliFunctionsRoutes, FilePathEncodesTheNameAndBoundsThePage_RF4) {
  EXPECT_EQ(fn::file_path("call_1", "out/a b.txt", 0, 2097152),
            "/v1/calls/call_1/file?name=out%2Fa%20b.txt&offset=0&limit=2097152");
  EXPECT_EQ(code_of([] { fn::file_path("call_1", "x", std::nullopt, 2097153); }), aw::ErrorCode::bad_request);
  EXPECT_EQ(code_of([] { fn::file_path("call_1", "x", -1, std::nullopt); }), aw::ErrorCode::bad_request);
  EXPECT_EQ(code_of([] { fn::file_path("call_1", "", std::nullopt, std::nullopt); }), aw::ErrorCode::bad_request);
}

TEST(CliFunctionsRoutes, CallBodyAndCrewPath_RF1) {
  EXPECT_EQ(fn::crew_path("api"), "/v1/crews/api");
  const json body = fn::call_body("word_count", {{"text", "a b"}}, std::string("sub-1"), 5);
  EXPECT_EQ(body, json({{"function", "word_count"}, {"arguments", {{"text", "a b"}}}, {"submission_id", "sub-1"},
                        {"wait_seconds", 5}}));
  EXPECT_FALSE(fn::call_body("f", json::object(), std::nullopt, 0).contains("wait_seconds"));
  EXPECT_EQ(code_of([] { fn::call_body("f", json::object(), std::string(), 0); }), aw::ErrorCode::bad_request);
}

TEST(CliFunctionsFilePage, TextAndBinaryPagesGiveTheirBytes_RF4) {
  EXPECT_EQ(fn::page_bytes({{"content", "hello\n"}}), "hello\n");
  EXPECT_EQ(fn::page_bytes({{"content_base64", "AP8="}}), std::string("\x00\xff", 2));
  EXPECT_EQ(code_of([] { fn::page_bytes({{"content_base64", "AP8"}}); }), aw::ErrorCode::internal);
  EXPECT_EQ(code_of([] { fn::page_bytes(json::object()); }), aw::ErrorCode::internal);
}

TEST(CliFunctionsDescribe, ARunningCallIsNotFinishedAndSaysHowToPoll_RF3) {
  const json call = {{"call_id", "call_9"}, {"function", "review"}, {"crew_name", "api"}, {"status", "waiting_input"},
                     {"progress", "reading"}, {"next_after", 4}, {"next_after_event", 2},
                     {"pending_inputs", {{{"request_id", "req_1"}, {"question", "Which branch?"}}}}};
  const std::string text = fn::describe_call(call);
  EXPECT_NE(text.find("(not finished)"), std::string::npos) << text;
  EXPECT_NE(text.find("progress: reading"), std::string::npos) << text;
  EXPECT_NE(text.find("--request req_1"), std::string::npos) << text;
  EXPECT_NE(text.find("--after 4 --after-event 2 --wait 25"), std::string::npos) << text;
  const std::string mcp = fn::describe_call(call, fn::Surface::mcp);
  EXPECT_NE(mcp.find("functions_reply call_id=call_9 request_id=req_1"), std::string::npos) << mcp;
  EXPECT_NE(mcp.find("after=4 after_event=2 wait_seconds=25"), std::string::npos) << mcp;
}

TEST(CliFunctionsDescribe, AFinishedCallShowsItsOutcomeAndFiles_RF3) {
  const json call = {{"call_id", "call_9"}, {"status", "failed"}, {"answer", "partial\n"},
                     {"error", {{"code", "exit_status"}, {"message", "exit 3"}}},
                     {"files", {{{"name", "report.txt"}, {"size", 120}, {"kind", "text"}}}}};
  const std::string text = fn::describe_call(call);
  EXPECT_NE(text.find("status failed (finished)"), std::string::npos) << text;
  EXPECT_NE(text.find("error: exit_status: exit 3"), std::string::npos) << text;
  EXPECT_NE(text.find("  partial\n"), std::string::npos) << text;
  EXPECT_NE(text.find("report.txt (120 bytes, text)"), std::string::npos) << text;
  EXPECT_EQ(text.find("poll with"), std::string::npos) << text;
}

TEST(CliFunctionsCommands, ArgsThatAreNotJsonAreUsageBeforeTheLogin_RF1) {
  // No login exists: a usage answer (2) rather than unauthenticated (3) proves the check comes first.
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"functions", "call", "--crew", "api", "--function", "f", "--args", "{nope"},
        std::vector<std::string>{"crews", "call", "api", "--function", "f", "--args", "[1,"}}) {
    std::vector<std::string> args = cmd;
    args.insert(args.end(), {"--json", "--config", "/nonexistent/agentworks-config.json"});
    const CliRun r = run_cli_captured(args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(json::parse(r.out)["error"]["code"], "usage") << r.out;
  }
}

TEST(CliFunctionsCommands, AskOutsideAnExecutionIsUsage) {
  ::unsetenv("AGENTWORKS_SERVER");
  ::unsetenv("AGENTWORKS_CALL_ID");
  ::unsetenv("AGENTWORKS_CALL_TOKEN");
  const CliRun r = run_cli_captured({"functions", "ask", "--question", "Which branch?", "--json"});
  EXPECT_EQ(r.code, 2);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["error"]["code"], "usage");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("only works inside a function execution"),
            std::string::npos);
}

TEST(CliFunctionsCommands, CrewNameFollowsTheAgentNameRules) {
  const CliRun r = run_cli_captured({"crews", "register", "-bad", "--dir", "/tmp", "--json", "--config", "/nonexistent/c.json"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
}
