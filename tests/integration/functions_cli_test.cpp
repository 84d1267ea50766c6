// `agentworks crews …` and `agentworks functions …` against a real agentworks-server in a temp HOME, with a real
// Crew folder and small scripts: the command line's argument handling, the --json objects passing through, the
// human text, and the aliases under `crews`. R-F1 (list/call/status/read/reply, inputs checked before anything is
// dispatched, a repeated submission id finds the accepted call), R-F3 (status with bounded, paged messages and
// events; only a terminal status is an outcome), R-F4 (file pages by offset and limit, text or base64, private to
// the caller and the owner).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/crew_folder.hpp"
#include "support/messaging_fixture.hpp"
#include "testing/binaries.hpp"
#include "testing/process.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

bool terminal(const json& call) {
  const std::string s = call.value("status", "");
  return s == "completed" || s == "failed" || s == "interrupted";
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class FunctionsCliTest : public MessagingTest {
 protected:
  void SetUp() override {
    start_server();
    crew_ = std::make_unique<CrewFolder>(fs::weakly_canonical(home_.path("crew-api")));
    declare_client_functions(*crew_, cli_binary());
  }

  json register_crew(const std::string& name = "api") {
    return cli_ok(owner(), {"crews", "register", name, "--dir", crew_->dir().string()});
  }

  json call(const std::string& function, const std::string& args, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {"functions", "call", "--crew", "api", "--function", function, "--args", args};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return cli_ok(owner(), argv);
  }

  // Polls call-status (long polls of 5 s) until the call is terminal; never reads progress as the end.
  json wait_terminal(const std::string& call_id, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    json status;
    while (std::chrono::steady_clock::now() < deadline) {
      status = cli_ok(owner(), {"functions", "call-status", "--call", call_id, "--wait", "5"});
      if (terminal(status)) return status;
    }
    throw std::runtime_error("call " + call_id + " did not finish: " + status.dump());
  }

  std::unique_ptr<CrewFolder> crew_;
};

// R-F1: register sends the absolute, normalised folder; list, show, reload and unregister pass the Crew through.
TEST_F(FunctionsCliTest, CrewsRegisterListShowReloadUnregister_RF1) {
  RunOptions o;
  o.env = home_.env();
  o.cwd = home_.root();
  const auto rel = fs::relative(crew_->dir(), home_.root()).string();
  const auto r =
      run_process({cli_binary(), "crews", "register", "api", "--dir", "./" + rel + "/tools/..", "--json"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json crew = json::parse(r.out);
  EXPECT_EQ(crew["crew_name"], "api");
  EXPECT_EQ(crew["dir"], crew_->dir().string());
  EXPECT_EQ(crew["functions"].size(), 4u) << crew.dump();
  const json list = cli_ok(owner(), {"crews", "list"});
  ASSERT_EQ(list["crews"].size(), 1u);
  EXPECT_EQ(list["crews"][0]["crew_id"], crew["crew_id"]);
  EXPECT_EQ(cli_ok(owner(), {"crews", "show", "api"})["crew_id"], crew["crew_id"]);
  const auto shown = owner().run({"crews", "show", "api"});
  EXPECT_NE(shown.out.find("crew api"), std::string::npos) << shown.describe();

  crew_->declare({CrewFolder::function("echo", "./tools/echo.sh")});
  EXPECT_EQ(cli_ok(owner(), {"crews", "reload", "api"})["functions"].size(), 1u);
  const json listed = cli_ok(owner(), {"functions", "list", "--crew", "api"});
  ASSERT_EQ(listed["functions"].size(), 1u);
  EXPECT_EQ(listed["functions"][0]["name"], "echo");

  const json removed = cli_ok(owner(), {"crews", "unregister", "api"});
  EXPECT_EQ(removed["removed"], true);
  const auto gone = owner().json({"crews", "show", "api"});
  EXPECT_EQ(gone.exit_code, 4) << gone.describe();
  EXPECT_EQ(gone.error_code(), "not_found");
}

// R-F1, R-F3: a call with --wait answers the finished call; `crews call NAME` is the same command.
TEST_F(FunctionsCliTest, CallWithWaitAnswersTheOutcomeAndCrewsCallIsTheSame_RF1_RF3) {
  register_crew();
  const json done = call("echo", R"({"text":"hi"})", {"--wait", "25"});
  EXPECT_EQ(done["accepted"], true) << done.dump();
  const json finished = terminal(done) ? done : wait_terminal(done["call_id"].get<std::string>());
  EXPECT_EQ(finished["status"], "completed") << finished.dump();
  EXPECT_NE(finished["answer"].get<std::string>().find("got: "), std::string::npos) << finished.dump();
  EXPECT_NE(finished["answer"].get<std::string>().find("hi"), std::string::npos) << finished.dump();

  const auto alias = owner().json({"crews", "call", "api", "--function", "echo", "--args", R"({"text":"again"})"});
  ASSERT_EQ(alias.exit_code, 0) << alias.describe();
  EXPECT_EQ(alias.json()["function"], "echo");
  EXPECT_EQ(wait_terminal(alias.json()["call_id"].get<std::string>())["status"], "completed");
  const auto status_alias =
      owner().json({"crews", "call-status", "--call", alias.json()["call_id"].get<std::string>()});
  EXPECT_EQ(status_alias.exit_code, 0) << status_alias.describe();
  // The call id alone, as the examples write it (`functions call-status CALL_ID`).
  const auto positional = owner().json({"functions", "call-status", alias.json()["call_id"].get<std::string>()});
  EXPECT_EQ(positional.exit_code, 0) << positional.describe();
  EXPECT_EQ(positional.json()["call_id"], alias.json()["call_id"]) << positional.describe();
  EXPECT_EQ(owner().json({"functions", "call-status"}).exit_code, 2) << "a call is still required";

  // The human form says the status and that it is finished.
  const auto text = owner().run({"functions", "call-status", "--call", done["call_id"].get<std::string>()});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("status completed (finished)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("answer:"), std::string::npos) << text.out;
}

// R-F1: --args that is not JSON is a usage error before anything is sent; arguments that break the inputs schema
// are the server's invalid_input; neither leaves a call folder.
TEST_F(FunctionsCliTest, ArgumentsAreCheckedBeforeAnythingIsDispatched_RF1) {
  register_crew();
  const auto not_json = owner().json({"functions", "call", "--crew", "api", "--function", "echo", "--args", "{text"});
  EXPECT_EQ(not_json.exit_code, 2) << not_json.describe();
  EXPECT_EQ(not_json.error_code(), "usage");
  const auto wrong_type =
      owner().json({"functions", "call", "--crew", "api", "--function", "echo", "--args", R"({"text":5})"});
  EXPECT_EQ(wrong_type.exit_code, 2) << wrong_type.describe();
  EXPECT_EQ(wrong_type.error_code(), "invalid_input");
  const auto unknown = owner().json({"functions", "call", "--crew", "api", "--function", "nope", "--args", "{}"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.describe();
  EXPECT_EQ(unknown.error_code(), "not_found");
  const auto long_wait = owner().json(
      {"functions", "call", "--crew", "api", "--function", "echo", "--args", R"({"text":"x"})", "--wait", "26"});
  EXPECT_EQ(long_wait.exit_code, 2) << long_wait.describe();
  const fs::path calls = crew_->dir() / ".calls";
  EXPECT_TRUE(!fs::exists(calls) || fs::is_empty(calls));
}

// R-F1: the same --submission-id answers the call already accepted; other arguments with it are a conflict.
TEST_F(FunctionsCliTest, RepeatedSubmissionIdFindsTheAcceptedCall_RF1) {
  register_crew();
  const json first = call("echo", R"({"text":"once"})", {"--submission-id", "sub-once"});
  const json again = call("echo", R"({"text":"once"})", {"--submission-id", "sub-once"});
  EXPECT_EQ(again["call_id"], first["call_id"]);
  const auto other = owner().json({"functions", "call", "--crew", "api", "--function", "echo", "--args",
                                   R"({"text":"twice"})", "--submission-id", "sub-once"});
  EXPECT_EQ(other.exit_code, 5) << other.describe();
  EXPECT_EQ(other.error_code(), "conflict");
  wait_terminal(first["call_id"].get<std::string>());
}

// R-F3: messages come in pages (--after, --message-limit) and events by --after-event.
TEST_F(FunctionsCliTest, StatusPagesTheExecutionMessagesAndEvents_RF3) {
  register_crew();
  const std::string id = call("progress", R"({"text":"x"})")["call_id"];
  const json done = wait_terminal(id);
  ASSERT_EQ(done["status"], "completed") << done.dump();
  const json first =
      cli_ok(owner(), {"functions", "call-status", "--call", id, "--after", "-1", "--message-limit", "1"});
  ASSERT_EQ(first["messages"].size(), 1u) << first.dump();
  EXPECT_EQ(first["messages"][0]["text"], "step one");
  const json next = cli_ok(owner(), {"functions", "call-status", "--call", id, "--after",
                                     std::to_string(first["next_after"].get<long long>()), "--message-limit", "5"});
  ASSERT_EQ(next["messages"].size(), 2u) << next.dump();
  EXPECT_EQ(next["messages"][0]["text"], "step two");
  EXPECT_FALSE(first["events"].empty()) << first.dump();
  const json later = cli_ok(owner(), {"functions", "call-status", "--call", id, "--after-event",
                                      std::to_string(first["next_after_event"].get<long long>())});
  EXPECT_TRUE(later["events"].empty()) << later.dump();
  const auto bad = owner().json({"functions", "call-status", "--call", id, "--message-limit", "501"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
}

// R-F4: text pages as content, binary pages as content_base64, --output writes every page's bytes; a path out of
// the call's folder is refused; another account cannot read the call at all.
TEST_F(FunctionsCliTest, CallFileReadsPagesAndWritesTheBytes_RF4) {
  register_crew();
  const std::string id = call("files", R"({"text":"x"})")["call_id"];
  ASSERT_EQ(wait_terminal(id)["status"], "completed");
  const json text = cli_ok(owner(), {"functions", "call-file", "--call", id, "--file", "report.txt"});
  EXPECT_EQ(text["content"], "hello files\n") << text.dump();
  EXPECT_EQ(text["eof"], true);
  const auto plain = owner().run({"functions", "call-file", "--call", id, "--file", "report.txt"});
  EXPECT_EQ(plain.out, "hello files\n") << plain.describe();

  const json page = cli_ok(owner(), {"functions", "call-file", "--call", id, "--file", "blob.bin", "--limit", "1000"});
  EXPECT_TRUE(page.contains("content_base64")) << page.dump().substr(0, 300);
  EXPECT_EQ(page["next_offset"], 1000);
  EXPECT_EQ(page["eof"], false);

  const fs::path out = home_.path("blob.copy");
  const json wrote = cli_ok(owner(), {"functions", "call-file", "--call", id, "--file", "blob.bin", "--limit", "1000",
                                      "--output", out.string()});
  EXPECT_EQ(wrote["bytes"], 4096);
  EXPECT_EQ(wrote["output"], out.string());
  EXPECT_EQ(file_bytes(out), file_bytes(crew_->dir() / ".calls" / id / "blob.bin"));

  const auto escape = owner().json({"functions", "call-file", "--call", id, "--file", "../../tools/echo.sh"});
  EXPECT_EQ(escape.exit_code, 2) << escape.describe();
  EXPECT_EQ(escape.error_code(), "bad_request");
  const auto missing = owner().json({"crews", "call-file", "--call", id, "--file", "nope.txt"});
  EXPECT_EQ(missing.error_code(), "not_found") << missing.describe();

  Identity other = add_account("other");
  const auto foreign = other.cli.json({"functions", "call-file", "--call", id, "--file", "report.txt"});
  EXPECT_EQ(foreign.exit_code, 4) << foreign.describe();
  EXPECT_EQ(other.cli.json({"functions", "call-status", "--call", id}).error_code(), "not_found");
}

// R-F1, R-F3: `functions ask` inside the execution blocks until `functions reply`; the call shows waiting_input
// with the request id in the human text, which is not an outcome.
TEST_F(FunctionsCliTest, AskWaitsForTheReplyAndPrintsTheAnswer_RF1_RF3) {
  register_crew();
  const std::string id = call("ask", R"({"text":"x"})")["call_id"];
  json waiting;
  ASSERT_TRUE(wait_until(
      [&] {
        waiting = cli_ok(owner(), {"functions", "call-status", "--call", id});
        return waiting["status"] == "waiting_input" || terminal(waiting);
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100)));
  ASSERT_EQ(waiting["status"], "waiting_input") << waiting.dump();
  ASSERT_EQ(waiting["pending_inputs"].size(), 1u);
  const std::string request = waiting["pending_inputs"][0]["request_id"];
  EXPECT_EQ(waiting["pending_inputs"][0]["question"], "Which branch?");
  const auto text = owner().run({"functions", "call-status", "--call", id});
  EXPECT_NE(text.out.find("(not finished)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--request " + request), std::string::npos) << text.out;

  const json answered = cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "main"});
  EXPECT_EQ(answered["answered"], true);
  const json done = wait_terminal(id);
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["answer"], "branch: main") << done.dump();  // stdout without its last newline
  const auto twice = owner().json({"crews", "reply", "--call", id, "--request", request, "--answer", "dev"});
  EXPECT_NE(twice.exit_code, 0) << twice.describe();
}

}  // namespace
}  // namespace agentworks::testing
