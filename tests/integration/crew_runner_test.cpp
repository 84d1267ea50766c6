// A Crew served from its owner's computer (R-R1..R-R4), with two computers simulated by two temp HOMEs: the server
// runs in computer A's; computer B's person registers a folder of B's HOME with `crews register --serve-here` and
// runs `agentworks crews serve`, the runner. Calls made through the server run in B's folder, with B's keeper; the
// server never reads that folder. A runner killed mid-call leaves the call `interrupted` (never run again) and its
// tree gone; a changed declaration is refused by the runner; stopping the serving ends the runner.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/crew_fixture.hpp"
#include "testing/binaries.hpp"
#include "testing/bridge_process.hpp"
#include "testing/cli_runner.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class CrewRunner : public CrewTest {
 protected:
  void SetUp() override {
    start_server({"--call-lease-seconds", "2", "--call-upload-limit", "400000"});
    b_cli_ = std::make_unique<Cli>(b_home_.env());
    const CliResult login = b_cli_->login(server_->url(), owner_token());
    ASSERT_EQ(login.exit_code, 0) << login.describe();
    folder_ = b_home_.home() / "projects" / "api";
    fs::create_directories(folder_ / ".agentworks");
    fs::create_directories(folder_ / "tools");
    // Where it runs shows in its answer; it keeps its pid, and waits for a gate when asked to.
    write_script(folder_, "tools/hello.sh",
                 "echo $$ > \"$FUNCTION_OUTPUT_DIR/pid\"\n"
                 "if [ \"$FUNCTION_INPUTS\" = '{\"hold\":true}' ]; then\n"
                 "  while [ ! -e gate ]; do sleep 0.05; done\n"
                 "fi\n"
                 "echo \"hello from $(pwd)\"");
    // Files of every kind: a text, a binary, one of several upload pieces, one over the server's upload limit.
    write_script(folder_, "tools/files.sh",
                 "printf 'REPORT\\n' > \"$FUNCTION_OUTPUT_DIR/report.txt\"\n"
                 "printf '\\377\\376\\001' > \"$FUNCTION_OUTPUT_DIR/data.bin\"\n"
                 "mkdir -p \"$FUNCTION_OUTPUT_DIR/sub\"\n"
                 "head -c 300000 /dev/zero | tr '\\0' 'm' > \"$FUNCTION_OUTPUT_DIR/sub/medium.txt\"\n"
                 "head -c 500000 /dev/zero | tr '\\0' 'b' > \"$FUNCTION_OUTPUT_DIR/big.txt\"\n"
                 "echo done");
    // A question to the caller, through the server, with the runner's secret for the call.
    write_script(folder_, "tools/asks.sh",
                 "answer=$('" + cli_binary() + "' functions ask --question 'Which branch?') || exit 7\n"
                 "echo \"answer=$answer\"");
    write_functions(folder_, json::array({function_decl("hello"), function_decl("files"),
                                          function_decl("asks", json{{"idle_timeout_seconds", 1}})}));
  }
  void TearDown() override {
    if (runner_.started()) runner_.kill_and_wait();
  }

  json register_here() {
    const CliResult r = b_cli_->json({"crews", "register", "api", "--dir", folder_.string(), "--serve-here"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return parse_json(r.out);
  }
  void serve() {
    runner_ = b_cli_->start({"crews", "serve", "api"}, b_home_.root(), "runner");
    ASSERT_TRUE(wait_until([&] {
      return http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("served").at("online").get<bool>();
    })) << runner_.read_stderr();
  }

  // True while a process of the call's execution lives: one whose environment names the call (seen from here
  // whatever PID namespace its keeper gave it).
  static bool call_process_lives(const std::string& call_id) {
    const std::string mark = "AGENTWORKS_CALL_ID=" + call_id;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
      std::ifstream env(entry.path() / "environ", std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
      if (text.find(mark + '\0') != std::string::npos) return true;  // each entry ends with a NUL
    }
    return false;
  }

  TempHome b_home_;
  std::unique_ptr<Cli> b_cli_;
  fs::path folder_;
  Child runner_;
};

// R-R1: the call runs in the folder on computer B, by B's runner, and its answer comes back through the
// server; the server's view of the Crew is the declaration B sent, and it lists no files of B's folder.
TEST_F(CrewRunner, ACallRunsOnTheComputerServingTheCrew_RR1) {
  const json crew = register_here();
  EXPECT_EQ(crew.at("served").at("host").get<std::string>().empty(), false);
  EXPECT_FALSE(crew.at("runner").contains("token")) << "the runner's secret is never printed";
  EXPECT_EQ(call(owner_http(), "api", "hello", json::object()).status, 503);  // no runner yet
  serve();
  const std::string id = call_ok("api", "hello").at("call_id");
  const json done = wait_terminal(id);
  ASSERT_EQ(done.at("status"), "completed") << done.dump() << runner_.read_stderr();
  EXPECT_EQ(done.at("answer"), "hello from " + fs::canonical(folder_).string());
  EXPECT_TRUE(done.at("served").get<bool>());
  ASSERT_EQ(done.at("files").size(), 1u) << done.dump();  // uploaded from B's folder (R-R4)
  EXPECT_EQ(done.at("files")[0].at("name"), "pid");
  EXPECT_TRUE(fs::exists(folder_ / ".calls" / id / "pid"));
  const CliResult shown = b_cli_->run({"crews", "show", "api"});
  EXPECT_NE(shown.out.find("served from: "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("online"), std::string::npos) << shown.out;
}

// R-R3: computer B goes away mid-call (its runner killed -9): the lease lapses and the call reads `interrupted`,
// never run again; the execution's tree dies with its runner.
TEST_F(CrewRunner, AKilledRunnerLeavesTheCallInterruptedAndItsTreeGone_RR3) {
  register_here();
  serve();
  const std::string id = call_ok("api", "hello", json{{"hold", true}}).at("call_id");
  const fs::path pid_file = folder_ / ".calls" / id / "pid";
  ASSERT_TRUE(wait_file(pid_file)) << runner_.read_stderr();
  ASSERT_TRUE(call_process_lives(id));
  runner_.signal(SIGKILL);
  runner_.wait_exit(std::chrono::seconds(10));
  EXPECT_TRUE(wait_until([&] { return !call_process_lives(id); }, std::chrono::seconds(10)));
  const json ended = wait_terminal(id, std::chrono::seconds(20));
  EXPECT_EQ(ended.at("status"), "interrupted") << ended.dump();
  // Back again, the runner does not run it anew.
  serve();
  EXPECT_EQ(status(id).at("status"), "interrupted");
  EXPECT_EQ(line_count(folder_ / ".calls" / id / "pid"), 1u);
}

// R-R2: the runner runs a call only as its folder declares it now, and only if that is what the call was admitted
// under: a declaration changed since the registration is refused with `declaration_changed`, and nothing runs.
TEST_F(CrewRunner, ADeclarationChangedSinceTheRegistrationIsRefused_RR2) {
  register_here();
  serve();
  json changed = json::array({function_decl("hello")});
  changed[0]["description"] = "a changed description";
  write_functions(folder_, changed);
  const std::string id = call_ok("api", "hello").at("call_id");
  const json ended = wait_terminal(id);
  EXPECT_EQ(ended.at("status"), "failed");
  EXPECT_EQ(ended.at("error").at("code"), "declaration_changed") << ended.dump();
  EXPECT_FALSE(fs::exists(folder_ / ".calls" / id));
  // The person reloads from B; the next call runs.
  const CliResult reload = b_cli_->json({"crews", "reload", "api"});
  ASSERT_EQ(reload.exit_code, 0) << reload.describe();
  EXPECT_EQ(wait_terminal(call_ok("api", "hello").at("call_id")).at("status"), "completed");
}

// R-R2: stopping the serving ends the runner (the server refuses its connection) and forgets its secret here.
TEST_F(CrewRunner, StopServingEndsTheRunner_RR2) {
  register_here();
  serve();
  const CliResult stop = b_cli_->json({"crews", "stop-serving", "api"});
  ASSERT_EQ(stop.exit_code, 0) << stop.describe();
  const auto code = runner_.wait_exit(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << runner_.read_stderr();
  EXPECT_EQ(*code, 3) << runner_.read_stderr();
  const CliResult again = b_cli_->json({"crews", "serve", "api"});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE((again.out + again.err).find("does not serve"), std::string::npos) << again.describe();
}

// R-R1: the bridge of the serving computer runs the runner of each Crew registered there, so serving needs no
// terminal; a runner that dies is started again, and one whose bridge is killed dies with it (and the Crew reads
// offline once its lease lapses).
TEST_F(CrewRunner, TheBridgeServesTheCrewsOfItsComputer_RR1) {
  BridgeProcess bridge(b_home_);
  bridge.start();
  register_here();
  ASSERT_TRUE(wait_until([&] {
    return http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("served").at("online").get<bool>();
  }, std::chrono::seconds(20))) << bridge.log();
  const json done = wait_terminal(call_ok("api", "hello").at("call_id"));
  EXPECT_EQ(done.at("status"), "completed") << done.dump() << bridge.log();
  // The bridge's status names its runner.
  const CliResult st = b_cli_->json({"daemon", "status"});
  ASSERT_EQ(st.exit_code, 0) << st.describe();
  EXPECT_NE(st.out.find("\"crew_name\":\"api\""), std::string::npos) << st.out;
  bridge.kill();
  EXPECT_TRUE(wait_until([&] {
    return !http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("served").at("online").get<bool>();
  }, std::chrono::seconds(20)));
  EXPECT_EQ(call(owner_http(), "api", "hello", json::object()).status, 503);
}

// R-R4: a served call's files are uploaded when its execution ends and read from the server afterwards, also with
// its computer offline: text and binary, in pages; one over the server's upload limit is listed, not stored.
TEST_F(CrewRunner, ItsFilesAreReadableAfterTheRunnerWentOffline_RR4) {
  register_here();
  serve();
  const std::string id = call_ok("api", "files").at("call_id");
  ASSERT_EQ(wait_terminal(id).at("status"), "completed") << runner_.read_stderr();
  runner_.kill_and_wait();
  fs::remove_all(folder_ / ".calls" / id);  // gone from computer B too: only the server has them now
  const json seen = status(id);
  std::map<std::string, json> files;
  for (const json& f : seen.at("files")) files[f.at("name").get<std::string>()] = f;
  ASSERT_EQ(files.size(), 4u) << seen.dump();  // report.txt, data.bin, sub/medium.txt, big.txt
  EXPECT_EQ(files.at("big.txt").at("size"), 500000);
  EXPECT_FALSE(files.at("big.txt").at("stored").get<bool>());
  EXPECT_EQ(files.at("data.bin").at("kind"), "binary");
  const json report = parse_json(file_page(owner_http(), id, "report.txt").body);
  EXPECT_EQ(report.at("content"), "REPORT\n");
  const json data = parse_json(file_page(owner_http(), id, "data.bin").body);
  EXPECT_EQ(data.at("content_base64"), "//4B");
  std::string medium;
  for (long long offset = 0;;) {
    const HttpResponse page = file_page(owner_http(), id, "sub/medium.txt", offset, 100000);
    ASSERT_EQ(page.status, 200) << describe(page);
    const json j = parse_json(page.body);
    medium += j.at("content").get<std::string>();
    offset = j.at("next_offset").get<long long>();
    if (j.at("eof").get<bool>()) break;
  }
  EXPECT_EQ(medium, std::string(300000, 'm'));
  const HttpResponse big = file_page(owner_http(), id, "big.txt");
  EXPECT_EQ(big.status, 404) << describe(big);
  EXPECT_NE(big.body.find("upload limit"), std::string::npos) << big.body;
}

// R-R3 with R-F3: a served call's execution asks its caller through the server with the secret its runner got at
// the claim; the pending question is no stall for the runner's idle timeout (it reads the call's state from the
// server), and the answer reaches the execution on computer B.
TEST_F(CrewRunner, AServedCallAsksItsCallerAndIsNoStallMeanwhile_RR3) {
  register_here();
  serve();
  const std::string id = call_ok("api", "asks").at("call_id");
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  ASSERT_EQ(waiting.at("pending_inputs").size(), 1u) << waiting.dump();
  // Longer than the 1 s idle timeout: a pending question is the caller's turn.
  ASSERT_FALSE(wait_until([&] { return status(id).value("status", "") != "waiting_input"; }, std::chrono::seconds(3)))
      << status(id).dump() << runner_.read_stderr();
  const std::string request = waiting.at("pending_inputs")[0].at("request_id");
  cli_ok(owner(), {"functions", "reply", "--call", id, "--request", request, "--answer", "main"});
  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "completed") << done.dump() << runner_.read_stderr();
  EXPECT_EQ(done.at("answer"), "answer=main");
}

// R-R3 with R-D1, R-D2: a chat the person granted the served Crew calls it as the caller of record, and the outcome
// its runner reports is noticed once to the chat's agent, as for a Crew the server runs.
TEST_F(CrewRunner, AChatsCallOfAServedCrewIsNoticedToItsAgent_RR3_RD1_RD2) {
  register_here();
  serve();
  register_agent(owner(), "worker");
  cli_ok(owner(), {"agents", "grant", "worker", "--functions", "api"});
  Identity chat = create_child(owner_token(), "worker");
  const HttpResponse made =
      chat.http.post("/v1/crews/api/calls", json{{"function", "hello"}, {"arguments", json::object()}}.dump());
  ASSERT_EQ(made.status, 201) << describe(made);
  const std::string id = parse_json(made.body).at("call_id");
  ASSERT_EQ(wait_terminal(id).at("status"), "completed");
  json notices = json::array();
  ASSERT_TRUE(wait_until([&] {
    notices = json::array();
    const json page = read_mailbox(owner(), "worker");
    for (const json& m : page.at("messages"))
      if (m.value("kind", "") == "call_outcome") notices.push_back(m);
    return !notices.empty();
  }));
  ASSERT_EQ(notices.size(), 1u) << notices.dump();
  EXPECT_EQ(notices[0].at("call_id"), id);
  EXPECT_EQ(notices[0].at("status"), "completed");
  EXPECT_NE(notices[0].at("message").get<std::string>().find("hello from"), std::string::npos) << notices.dump();
}

}  // namespace
}  // namespace agentworks::testing
