// Calling functions (R-F1, R-F2): inputs checked before anything is created, accepted calls, the execution's
// environment and stdin, stdout as the answer and stderr lines as messages, failures, the per-Crew running limit
// (busy, never queued), timeouts holding their slot until the process is gone, and submission_id recovery.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "testing/process.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

json text_inputs() {
  return {{"type", "object"},
          {"properties", {{"text", {{"type", "string"}}}, {"n", {{"type", "integer"}}}}},
          {"required", {"text"}},
          {"additionalProperties", false}};
}

// NAME=VALUE lines of an `env` dump.
std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

fs::path normal(const std::string& p) {
  std::string s = p;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return fs::weakly_canonical(s);
}

class FunctionsCalling : public CrewTest {};

// R-F1: missing, unknown and mistyped inputs are invalid_input naming the argument path and the reason; no
// record (the same submission_id is then free for a new call) and no .calls folder exist afterwards.
TEST_F(FunctionsCalling, BadInputsRefusedBeforeAnythingIsCreated_R_F1) {
  start_server();
  make_crew("api", json::array({function_decl("count", {{"inputs", text_inputs()}})}),
            {{"tools/count.sh", "echo run >> counter\necho counted"}});
  // The message names the path in the arguments (`arguments.n`) and the reason (the schema keyword that failed).
  struct Case {
    json arguments;
    std::string argument;  // the argument path the message must name
    std::string reason;    // the failed keyword it must name
  };
  const std::vector<Case> cases = {{json::object(), "text", "required"},
                                   {{{"text", "a"}, {"extra", 1}}, "extra", "additionalProperties"},
                                   {{{"text", "a"}, {"n", "seven"}}, "arguments.n", "type"},
                                   {{{"text", 5}}, "arguments.text", "type"}};
  for (const Case& c : cases) {
    const HttpResponse r = call(owner_http(), "api", "count", c.arguments, {{"submission_id", "sub-bad"}});
    EXPECT_EQ(r.status, 400) << c.arguments.dump() << " " << describe(r);
    EXPECT_EQ(error_code_of(r.body), "invalid_input") << describe(r);
    const std::string message = parse_json(r.body).at("error").value("message", "");
    EXPECT_NE(message.find(c.argument), std::string::npos) << "the argument path: " << message;
    EXPECT_NE(message.find(c.reason), std::string::npos) << "the reason: " << message;
  }
  EXPECT_EQ(call_folder_count("api"), 0u) << "an invalid call creates no folder";
  EXPECT_FALSE(fs::exists(crew_dir("api") / "counter"));
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("running"), 0);
  // No record: the submission id was never bound, so a good call with it is new (201), not a repeat or conflict.
  const json accepted = call_ok("api", "count", {{"text", "a b"}}, {{"submission_id", "sub-bad"}});
  EXPECT_EQ(accepted.at("accepted"), true);
  // An unknown function and an unknown Crew are not_found.
  EXPECT_EQ(error_code_of(call(owner_http(), "api", "nope", json::object()).body), "not_found");
  EXPECT_EQ(error_code_of(call(owner_http(), "nocrew", "count", {{"text", "a"}}).body), "not_found");

  // The CLI exits 2 with invalid_input.
  const CliResult cli = owner().json({"functions", "call", "--crew", "api", "--function", "count", "--args", "{}"});
  EXPECT_EQ(cli.exit_code, 2) << cli.describe();
  EXPECT_EQ(cli.error_code(), "invalid_input") << cli.describe();
}

// R-F1 R-F2: an accepted call answers accepted, call_id and status; the execution runs in the Crew folder with
// exactly the documented environment, the inputs on stdin, and a 0700 folder of its own.
TEST_F(FunctionsCalling, AcceptedCallEnvironmentAndStdin_R_F1_R_F2) {
  ::setenv("AW_FN_TEST_NOT_PASSED", "leak", 1);  // the server inherits it; the execution must not
  start_server();
  ::unsetenv("AW_FN_TEST_NOT_PASSED");
  make_crew("api", json::array({function_decl("probe")}),
            {{"tools/probe.sh",
              "env > \"$FUNCTION_OUTPUT_DIR/env.txt\"\n"
              "cat > \"$FUNCTION_OUTPUT_DIR/stdin.txt\"\n"
              "pwd -P > \"$FUNCTION_OUTPUT_DIR/pwd.txt\"\n"
              "echo probed"}});
  const json arguments = {{"text", "héllo \"world\""}, {"n", 3}};
  const json accepted = call_ok("api", "probe", arguments);
  EXPECT_EQ(accepted.at("accepted"), true) << accepted.dump();
  const std::string id = accepted.at("call_id").get<std::string>();
  EXPECT_EQ(id.rfind("call_", 0), 0u) << accepted.dump();
  EXPECT_TRUE(accepted.at("status") == "running" || is_terminal_status(accepted.value("status", ""))) << accepted.dump();
  EXPECT_EQ(accepted.at("function"), "probe");
  EXPECT_EQ(accepted.at("crew_name"), "api");
  const json done = wait_terminal(id);
  ASSERT_EQ(done.at("status"), "completed") << done.dump();

  const fs::path folder = call_dir("api", id);
  struct stat st {};
  ASSERT_EQ(::stat(folder.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto env = parse_env(read_file(folder / "env.txt"));
  ASSERT_TRUE(env.count("FUNCTION_INPUTS")) << read_file(folder / "env.txt");
  EXPECT_EQ(json::parse(env.at("FUNCTION_INPUTS")), arguments);
  EXPECT_EQ(json::parse(read_file(folder / "stdin.txt")), arguments);
  EXPECT_EQ(normal(env["FUNCTION_OUTPUT_DIR"]), fs::weakly_canonical(folder));
  EXPECT_EQ(normal(env["FUNCTION_RESULT_FILE"]), fs::weakly_canonical(folder) / "result.json");
  EXPECT_EQ(normal(env["CREW_OUTPUT_DIR"]), fs::weakly_canonical(crew_dir("api")) / "outputs");
  EXPECT_EQ(normal(env["CREW_RUN_DIR"]), fs::weakly_canonical(crew_dir("api")) / "outputs");
  EXPECT_EQ(env["AGENTWORKS_CALL_ID"], id);
  EXPECT_FALSE(env["AGENTWORKS_CALL_TOKEN"].empty());
  EXPECT_NE(env["AGENTWORKS_CALL_TOKEN"], owner_token());
  EXPECT_EQ(env["AGENTWORKS_SERVER"], server_->url());
  EXPECT_EQ(trim_newlines(read_file(folder / "pwd.txt")), fs::weakly_canonical(crew_dir("api")).string());
  const std::set<std::string> allowed = {"FUNCTION_INPUTS", "FUNCTION_OUTPUT_DIR", "FUNCTION_RESULT_FILE",
                                         "CREW_OUTPUT_DIR", "CREW_RUN_DIR", "AGENTWORKS_CALL_ID",
                                         "AGENTWORKS_CALL_TOKEN", "AGENTWORKS_SERVER", "PATH", "HOME", "USER",
                                         "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR",
                                         "PWD", "SHLVL", "_", "OLDPWD"};  // the last four: set by sh itself
  for (const auto& [name, value] : env) EXPECT_TRUE(allowed.count(name)) << "unexpected variable " << name;
  EXPECT_FALSE(env.count("AW_FN_TEST_NOT_PASSED"));
  EXPECT_EQ(trim_newlines(done.value("answer", "")), "probed") << done.dump();
}

// R-F2 R-F3: stdout is the answer, each stderr line a progress message; a non-zero exit fails with the status and
// the last stderr lines; a signal is `killed`.
TEST_F(FunctionsCalling, StdoutAnswerStderrMessagesExitStatus_R_F2_R_F3) {
  start_server();
  make_crew("api", json::array({function_decl("ok"), function_decl("bad"), function_decl("dies")}),
            {{"tools/ok.sh", "echo 'step one' >&2\necho 'step two' >&2\nprintf 'hello world\\n'"},
             {"tools/bad.sh", "echo 'working' >&2\necho 'fatal: disk on fire' >&2\necho partial\nexit 3"},
             {"tools/dies.sh", "echo 'about to die' >&2\nkill -9 $$"}});
  const json ok = wait_terminal(call_ok("api", "ok").at("call_id").get<std::string>());
  EXPECT_EQ(ok.at("status"), "completed") << ok.dump();
  EXPECT_EQ(answer_of(ok), "hello world") << ok.dump();
  EXPECT_EQ(message_texts(ok), (std::vector<std::string>{"step one", "step two"})) << ok.dump();
  for (const auto& m : ok.at("messages")) EXPECT_EQ(m.at("kind"), "progress");
  EXPECT_TRUE(ok.at("error").is_null()) << ok.dump();
  EXPECT_FALSE(ok.at("finished_at").is_null()) << ok.dump();
  const auto events = event_types(ok);
  EXPECT_EQ(events.front(), "started") << ok.dump();
  EXPECT_EQ(events.back(), "completed") << ok.dump();

  const json bad = wait_terminal(call_ok("api", "bad").at("call_id").get<std::string>());
  EXPECT_EQ(bad.at("status"), "failed") << bad.dump();
  ASSERT_TRUE(bad.at("error").is_object()) << bad.dump();
  EXPECT_EQ(bad.at("error").at("code"), "exit_status") << bad.dump();
  const std::string message = bad.at("error").value("message", "");
  EXPECT_NE(message.find('3'), std::string::npos) << message;
  EXPECT_NE(message.find("fatal: disk on fire"), std::string::npos) << message;
  EXPECT_EQ(event_types(bad).back(), "failed") << bad.dump();

  const json dies = wait_terminal(call_ok("api", "dies").at("call_id").get<std::string>());
  EXPECT_EQ(dies.at("status"), "failed") << dies.dump();
  EXPECT_EQ(dies.at("error").value("code", ""), "killed") << dies.dump();

  // The CLI: call --wait answers the terminal Call; `crews call` is the same command.
  const json waited = cli_ok(owner(), {"functions", "call", "--crew", "api", "--function", "ok", "--args", "{}",
                                       "--wait", "20"});
  EXPECT_EQ(waited.at("accepted"), true) << waited.dump();
  EXPECT_EQ(waited.at("status"), "completed") << waited.dump();
  const json alias = cli_ok(owner(), {"crews", "call", "api", "--function", "ok", "--args", "{}", "--wait", "20"});
  EXPECT_EQ(alias.at("status"), "completed") << alias.dump();
  const CliResult failed_status = owner().json({"functions", "call-status", "--call", bad.at("call_id").get<std::string>()});
  EXPECT_EQ(failed_status.exit_code, 0) << "reading a failed call succeeds: " << failed_status.describe();
  EXPECT_EQ(failed_status.json().at("status"), "failed");
}

// R-F2: with 3 calls running the fourth is busy at once (HTTP 503, CLI exit 5) and creates nothing; once they end,
// calls are accepted again. Each execution has its own folder.
TEST_F(FunctionsCalling, FourthCallBusyNeverQueued_R_F2) {
  start_server();
  make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(call_ok("api", "hold").at("call_id").get<std::string>());
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 3)) << "three executions run at once";
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("running"), 3);

  const HttpResponse fourth = call(owner_http(), "api", "hold", json::object());
  EXPECT_EQ(fourth.status, 503) << describe(fourth);
  EXPECT_EQ(error_code_of(fourth.body), "busy") << describe(fourth);
  const CliResult cli = owner().json({"functions", "call", "--crew", "api", "--function", "hold", "--args", "{}"});
  EXPECT_EQ(cli.exit_code, 5) << cli.describe();
  EXPECT_EQ(cli.error_code(), "busy") << cli.describe();
  EXPECT_EQ(call_folder_count("api"), 3u) << "a busy call creates no folder";
  for (const auto& id : ids) EXPECT_EQ(status(id).at("status"), "running");

  open_gate(crew_dir("api"));
  for (const auto& id : ids) EXPECT_EQ(wait_terminal(id).at("status"), "completed");
  EXPECT_EQ(line_count(crew_dir("api") / "started.log"), 3u) << "the busy calls were never queued and run later";
  ASSERT_TRUE(wait_until([&] {
    return http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).value("running", -1) == 0;
  }));
  const json after = call_ok("api", "hold");
  EXPECT_EQ(wait_terminal(after.at("call_id").get<std::string>()).at("status"), "completed");
}

// R-F2: --crew-max-running raises the limit.
TEST_F(FunctionsCalling, CrewMaxRunningFlag_R_F2) {
  start_server({"--crew-max-running", "1"});
  make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  const json first = call_ok("api", "hold");
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  EXPECT_EQ(error_code_of(call(owner_http(), "api", "hold", json::object()).body), "busy");
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(first.at("call_id").get<std::string>()).at("status"), "completed");
}

// R-F2: a timed-out execution fails with `timeout` and keeps its slot while its process is still there: a script
// that ignores SIGTERM holds it until the server kills it for good; then the slot frees.
TEST_F(FunctionsCalling, TimedOutExecutionKeepsSlotUntilGone_R_F2) {
  start_server({"--crew-max-running", "1"});
  make_crew("api",
            json::array({function_decl("slow", {{"timeout_seconds", 1}}), function_decl("quick")}),
            {{"tools/slow.sh", "trap '' TERM\necho run >> counter\n"
                               "while [ ! -e gate/open ]; do sleep 0.02; done"},
             {"tools/quick.sh", "echo quick"}});
  const std::string id = call_ok("api", "slow").at("call_id").get<std::string>();
  const auto alive = [&] { return !processes_in(crew_dir("api"), "slow.sh").empty(); };
  ASSERT_TRUE(wait_until(alive)) << "the slow script runs";
  bool probed_while_alive = false;
  // Until the process is gone, every call is busy; a call answered while the process was still alive after the
  // answer proves the slot was held.
  while (alive()) {
    const HttpResponse r = call(owner_http(), "api", "quick", json::object());
    const bool alive_after = alive();
    if (r.status == 201) {
      EXPECT_FALSE(alive_after) << "a call was accepted while the timed-out process was still running: " << describe(r);
      break;
    }
    EXPECT_EQ(error_code_of(r.body), "busy") << describe(r);
    if (alive_after) probed_while_alive = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_LT(line_count(crew_dir("api") / "counter"), 2u);
  }
  EXPECT_TRUE(probed_while_alive);
  const json timed_out = wait_terminal(id);
  EXPECT_EQ(timed_out.at("status"), "failed") << timed_out.dump();
  EXPECT_EQ(timed_out.at("error").value("code", ""), "timeout") << timed_out.dump();
  const auto events = event_types(timed_out);
  EXPECT_NE(std::find(events.begin(), events.end(), "timed_out"), events.end()) << timed_out.dump();
  ASSERT_TRUE(wait_until([&] { return call(owner_http(), "api", "quick", json::object()).status == 201; }))
      << "the slot frees once the process is gone";
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u) << "a timeout is never retried";
}

// R-F1: a repeated submission_id returns the same call, running or finished, without a second execution; other
// arguments or another function with the same id are conflict; another account's same id is its own call.
TEST_F(FunctionsCalling, SubmissionIdRecoversTheCall_R_F1) {
  start_server();
  make_crew("api", json::array({function_decl("count", {{"inputs", text_inputs()}}), function_decl("other")}),
            {{"tools/count.sh", "echo run >> counter\nwhile [ ! -e gate/open ]; do sleep 0.02; done\necho counted"},
             {"tools/other.sh", "echo other"}});
  const json args = {{"text", "a b c"}};
  const json first = call_ok("api", "count", args, {{"submission_id", "job-1"}}, 201);
  const std::string id = first.at("call_id").get<std::string>();
  EXPECT_EQ(first.at("submission_id"), "job-1") << first.dump();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "counter", 1));

  const json running_repeat = call_ok("api", "count", args, {{"submission_id", "job-1"}}, 200);
  EXPECT_EQ(running_repeat.at("call_id"), id) << running_repeat.dump();
  EXPECT_EQ(running_repeat.at("status"), "running") << running_repeat.dump();
  const HttpResponse other_args = call(owner_http(), "api", "count", {{"text", "different"}}, {{"submission_id", "job-1"}});
  EXPECT_EQ(other_args.status, 409) << describe(other_args);
  EXPECT_EQ(error_code_of(other_args.body), "conflict") << describe(other_args);
  const HttpResponse other_fn = call(owner_http(), "api", "other", json::object(), {{"submission_id", "job-1"}});
  EXPECT_EQ(error_code_of(other_fn.body), "conflict") << describe(other_fn);

  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
  const json finished_repeat = call_ok("api", "count", args, {{"submission_id", "job-1"}}, 200);
  EXPECT_EQ(finished_repeat.at("call_id"), id);
  EXPECT_EQ(finished_repeat.at("status"), "completed") << finished_repeat.dump();
  // The CLI's --submission-id recovers it as well.
  const json cli = cli_ok(owner(), {"functions", "call", "--crew", "api", "--function", "count", "--args", args.dump(),
                                    "--submission-id", "job-1"});
  EXPECT_EQ(cli.at("call_id"), id) << cli.dump();

  // A new id runs once more; counting the runs after it finishes shows the repeats started nothing.
  const std::string second = call_ok("api", "count", args, {{"submission_id", "job-2"}}).at("call_id").get<std::string>();
  EXPECT_NE(second, id);
  EXPECT_EQ(wait_terminal(second).at("status"), "completed");
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 2u);
}

// R-F1: wait_seconds on the call answers the terminal Call when it ends within the wait.
TEST_F(FunctionsCalling, CallWaitSecondsAnswersTerminal_R_F1) {
  start_server();
  make_crew("api", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo quick"}});
  const json c = call_ok("api", "quick", json::object(), {{"wait_seconds", 20}});
  EXPECT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(answer_of(c), "quick") << c.dump();
  const HttpResponse too_long = call(owner_http(), "api", "quick", json::object(), {{"wait_seconds", 26}});
  EXPECT_EQ(error_code_of(too_long.body), "bad_request") << describe(too_long);
}

}  // namespace
}  // namespace agentworks::testing
