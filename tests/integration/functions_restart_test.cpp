// Restarts and crashes (R-F6, R-F1): completed calls stay readable; a call running when the server stopped reads
// interrupted with its saved messages and files and is never started again; an execution dies with its server,
// children included, even on kill -9; a submission_id still recovers its call after a restart.
#include <gtest/gtest.h>

#include <string>

#include "testing/process.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

class FunctionsRestart : public CrewTest {
 protected:
  // A Crew whose `hold` function writes a progress line and a file, starts a background `sleep 300`, counts its
  // runs and blocks; `quick` completes at once. Its processes are found with hold_processes().
  void make_restart_crew() {
    make_crew("api", json::array({function_decl("hold"), function_decl("quick")}),
              {{"tools/hold.sh",
                "echo run >> counter\n"
                "echo 'saved progress' >&2\n"
                "echo evidence > \"$FUNCTION_OUTPUT_DIR/evidence.txt\"\n"
                "sleep 300 &\n"
                "while [ ! -e gate/open ]; do sleep 0.02; done\n"
                "kill $! 2>/dev/null; echo released"},
               {"tools/quick.sh", "echo quick"}});
  }
  // The hold script and its sleep, running in the Crew folder.
  std::size_t hold_processes() {
    return processes_in(crew_dir("api"), "hold.sh").size() + processes_in(crew_dir("api"), "sleep 300").size();
  }
  // After a restart: a quick call that completes proves the server finished starting; the counter shows no rerun.
  void expect_never_rerun() {
    const std::string quick = call_ok("api", "quick").at("call_id").get<std::string>();
    EXPECT_EQ(wait_terminal(quick).at("status"), "completed");
    EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u) << "an interrupted call is never started again";
  }
  void expect_interrupted(const std::string& id) {
    const json c = wait_terminal(id);
    EXPECT_EQ(c.at("status"), "interrupted") << c.dump();
    EXPECT_EQ(c.at("error").value("code", ""), "interrupted") << c.dump();
    EXPECT_EQ(message_texts(c), std::vector<std::string>{"saved progress"}) << "saved messages stay: " << c.dump();
    const HttpResponse evidence = file_page(owner_http(), id, "evidence.txt");
    EXPECT_EQ(evidence.status, 200) << describe(evidence);
    EXPECT_EQ(parse_json(evidence.body).value("content", ""), "evidence\n");
    EXPECT_EQ(event_types(c).back(), "interrupted") << c.dump();
  }
};

// R-F6: a graceful stop during a running call; after the restart the call is interrupted, readable, not rerun,
// and its processes are gone (the execution did not outlive the server).
TEST_F(FunctionsRestart, RestartDuringCallInterruptsNeverReruns_R_F6) {
  start_server();
  make_restart_crew();
  const std::string done = call_ok("api", "quick", json::object(), {{"wait_seconds", 20}}).at("call_id").get<std::string>();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_until([&] { return !processes_in(crew_dir("api"), "sleep 300").empty(); }))
      << "the script and its sleep run";
  ASSERT_TRUE(wait_status(id, [](const json& c) { return !c.at("messages").empty(); }).at("status") == "running");

  stop_server(/*graceful=*/true);
  EXPECT_TRUE(wait_until([&] { return hold_processes() == 0; }, std::chrono::seconds(20)))
      << "the execution outlived its server";
  start_again_same_port();
  expect_interrupted(id);
  const json completed = status(done);
  EXPECT_EQ(completed.at("status"), "completed") << "completed calls stay readable: " << completed.dump();
  EXPECT_EQ(answer_of(completed), "quick");
  expect_never_rerun();
}

// R-F6: kill -9 of the server during a call: the execution and its background child die too (the keeper), and the
// call reads interrupted after the restart; the folder stops changing.
TEST_F(FunctionsRestart, KillNineKillsExecutionAndChildren_R_F6) {
  start_server();
  make_restart_crew();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_until([&] { return !processes_in(crew_dir("api"), "sleep 300").empty(); }))
      << "the script and its sleep run";
  wait_status(id, [](const json& c) { return !c.at("messages").empty(); });

  stop_server(/*graceful=*/false);
  EXPECT_TRUE(wait_until([&] { return processes_in(crew_dir("api"), "hold.sh").empty(); }, std::chrono::seconds(20)))
      << "the execution survived kill -9 of its server";
  EXPECT_TRUE(wait_until([&] { return processes_in(crew_dir("api"), "sleep 300").empty(); }, std::chrono::seconds(20)))
      << "the execution's background child survived";
  // The gate opening now changes nothing: nothing is left to see it.
  open_gate(crew_dir("api"));
  start_again_same_port();
  expect_interrupted(id);
  expect_never_rerun();
  EXPECT_EQ(read_file(crew_dir("api") / "counter"), "run\n");
}

// R-F1 R-F6: a submission_id answered before a crash recovers the same call after the restart (200, no new run),
// and other arguments are still a conflict.
TEST_F(FunctionsRestart, SubmissionIdRecoveredAcrossRestart_R_F1_R_F6) {
  start_server();
  make_crew("api", json::array({function_decl("count")}), {{"tools/count.sh", "echo run >> counter\necho counted"}});
  const json first = call_ok("api", "count", {{"x", 1}}, {{"submission_id", "nightly-7"}, {"wait_seconds", 20}});
  ASSERT_EQ(first.at("status"), "completed") << first.dump();
  const std::string id = first.at("call_id").get<std::string>();

  stop_server(/*graceful=*/false);
  start_again_same_port();
  const json repeat = call_ok("api", "count", {{"x", 1}}, {{"submission_id", "nightly-7"}}, 200);
  EXPECT_EQ(repeat.at("call_id"), id) << repeat.dump();
  EXPECT_EQ(repeat.at("status"), "completed");
  EXPECT_EQ(answer_of(repeat), "counted");
  const HttpResponse conflict = call(owner_http(), "api", "count", {{"x", 2}}, {{"submission_id", "nightly-7"}});
  EXPECT_EQ(conflict.status, 409) << describe(conflict);
  EXPECT_EQ(error_code_of(conflict.body), "conflict");
  const json fresh = call_ok("api", "count", {{"x", 1}}, {{"submission_id", "nightly-8"}, {"wait_seconds", 20}});
  EXPECT_NE(fresh.at("call_id"), id);
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 2u) << "the repeat ran nothing";
}

}  // namespace
}  // namespace agentworks::testing
