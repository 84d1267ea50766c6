// Function calls with several replicas on one PostgreSQL store (R-F6): a call is run by the replica that
// committed it, under a lease; another replica starting leaves it alone, and when its replica dies the call is
// interrupted once the lease lapses, never run again. Runs in the pg.* registration only.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "support/crew_fixture.hpp"
#include "testing/cli_runner.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/test_store.hpp"

namespace agentworks::testing {
namespace {

class ReplicaCalls : public CrewTest {
 protected:
  void SetUp() override {
    if (!store_is_postgresql()) GTEST_SKIP() << "replicas share a PostgreSQL store: run as pg.ReplicaCalls.*";
  }
  ServerProcess& start_replica(const std::vector<std::string>& extra_args) {
    replicas_.push_back(std::make_unique<ServerProcess>(replica_options(*server_, server_env(), extra_args)));
    return *replicas_.back();
  }
  void make_hold_crew() {
    make_crew("api", json::array({function_decl("hold"), function_decl("quick")}),
              {{"tools/hold.sh",
                "echo run >> counter\n"
                "while [ ! -e gate/open ]; do sleep 0.02; done\n"
                "echo released"},
               {"tools/quick.sh", "echo quick"}});
  }
  json wait_status_at(const HttpClient& http, const std::string& id, const std::string& wanted) {
    json last;
    const bool reached = wait_until(
        [&] {
          const HttpResponse r = status_as(http, id);
          if (r.status != 200) return false;
          last = parse_json(r.body);
          return last.at("status") == wanted;
        },
        std::chrono::seconds(40));
    if (!reached) throw std::runtime_error("call " + id + " never reached " + wanted + ": " + last.dump());
    return last;
  }
  std::vector<std::unique_ptr<ServerProcess>> replicas_;
};

// A replica that starts while another runs a call leaves that call running; it completes on its own replica.
TEST_F(ReplicaCalls, StartingReplicaLeavesAnotherReplicasCallRunning_R_T4) {
  start_server({"--call-lease-seconds", "2"});
  make_hold_crew();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "counter", 1));
  ServerProcess& b = start_replica({"--call-lease-seconds", "2"});
  const HttpClient at_b(b.url(), owner_token());
  // B has started (it answers, and runs calls of its own) and A's call is still running.
  const HttpResponse quick = call(at_b, "api", "quick", json::object());
  ASSERT_EQ(quick.status, 201) << describe(quick);
  wait_status_at(at_b, parse_json(quick.body).at("call_id").get<std::string>(), "completed");
  EXPECT_EQ(parse_json(status_as(at_b, id).body).at("status"), "running");
  write_text(crew_dir("api") / "gate/open", "1");
  const json done = wait_status_at(at_b, id, "completed");
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u) << done.dump();
}

// A cancel taken by another replica reaches the replica that runs the call (R-D3): its tree is killed there and
// the call ends cancelled, read the same through both.
TEST_F(ReplicaCalls, CancelThroughAnotherReplicaEndsTheCall_R_D3) {
  start_server();
  make_hold_crew();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "counter", 1));
  ServerProcess& b = start_replica({});
  const HttpClient at_b(b.url(), owner_token());
  const HttpResponse asked = at_b.post("/v1/calls/" + id + "/cancel", json{{"wait_seconds", 25}}.dump());
  ASSERT_EQ(asked.status, 200) << describe(asked);
  EXPECT_EQ(parse_json(asked.body).at("cancel"), "cancelled") << asked.body;
  EXPECT_EQ(status(id).at("status"), "cancelled");
  EXPECT_TRUE(processes_in(crew_dir("api")).empty()) << "the running replica killed the tree";
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u);
}

// A Crew's running-call limit counts the calls every replica runs: one more through another replica is busy.
TEST_F(ReplicaCalls, BusyLimitCountsCallsOfEveryReplica_R_T3) {
  start_server({"--crew-max-running", "1"});
  ServerProcess& b = start_replica({"--crew-max-running", "1"});
  make_hold_crew();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "counter", 1));
  const HttpClient at_b(b.url(), owner_token());
  const HttpResponse second = call(at_b, "api", "hold", json::object());
  EXPECT_EQ(second.status, 503) << describe(second);
  EXPECT_EQ(error_code_of(second.body), "busy") << describe(second);
  write_text(crew_dir("api") / "gate/open", "1");
  wait_status_at(at_b, id, "completed");
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u) << "the busy call never ran";
}

// kill -9 of the replica running a call: its execution dies with it, another replica interrupts the call when the
// lease lapses, and nothing runs it again.
TEST_F(ReplicaCalls, KilledReplicasCallIsInterruptedByAnotherNeverRerun_R_T4) {
  start_server({"--call-lease-seconds", "2"});
  ServerProcess& b = start_replica({"--call-lease-seconds", "2"});
  make_hold_crew();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  // The run has counted itself (its first line) and is holding: a kill before the count would leave 0 lines.
  ASSERT_TRUE(wait_lines(crew_dir("api") / "counter", 1));
  ASSERT_TRUE(wait_until([&] { return !processes_in(crew_dir("api"), "hold.sh").empty(); }));
  server_->kill();
  EXPECT_TRUE(wait_until([&] { return processes_in(crew_dir("api"), "hold.sh").empty(); }, std::chrono::seconds(20)))
      << "the execution outlived its replica";
  const HttpClient at_b(b.url(), owner_token());
  const json interrupted = wait_status_at(at_b, id, "interrupted");
  EXPECT_EQ(interrupted.at("error").value("code", ""), "interrupted") << interrupted.dump();
  const HttpResponse quick = call(at_b, "api", "quick", json::object());
  ASSERT_EQ(quick.status, 201) << describe(quick);
  wait_status_at(at_b, parse_json(quick.body).at("call_id").get<std::string>(), "completed");
  EXPECT_EQ(line_count(crew_dir("api") / "counter"), 1u) << "the interrupted call ran again";
}

// R-R1, R-R3 with replicas: a served Crew's call is leased to its runner, not to the replica that admitted it, so
// that replica's death leaves the call running on the serving computer; the runner (logged in to the other
// replica) claims, reports and settles it there, exactly once.
TEST_F(ReplicaCalls, AServedCallOutlivesTheReplicaThatAdmittedIt_RR1_RR3) {
  start_server({"--call-lease-seconds", "2"});
  ServerProcess& b = start_replica({"--call-lease-seconds", "2"});
  TempHome computer;  // the serving computer, logged in to replica B
  Cli serving(computer.env());
  ASSERT_EQ(serving.login(b.url(), owner_token()).exit_code, 0);
  const auto folder = computer.home() / "api";
  std::filesystem::create_directories(folder / ".agentworks");
  write_script(folder, "tools/hold.sh",
               "echo run >> counter\nwhile [ ! -e gate ]; do sleep 0.02; done\necho released");
  write_functions(folder, json::array({function_decl("hold")}));
  const CliResult reg = serving.json({"crews", "register", "api", "--dir", folder.string(), "--serve-here"});
  ASSERT_EQ(reg.exit_code, 0) << reg.describe();
  Child runner = serving.start({"crews", "serve", "api"}, computer.root(), "runner");
  const HttpClient at_b(b.url(), owner_token());
  ASSERT_TRUE(wait_until([&] {
    const HttpResponse c = at_b.get("/v1/crews/api");
    return c.status == 200 && parse_json(c.body).at("served").at("online").get<bool>();
  })) << runner.read_stderr();
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();  // admitted by replica A
  ASSERT_TRUE(wait_lines(folder / "counter", 1)) << runner.read_stderr();
  server_->kill();
  write_text(folder / "gate", "1");
  const json done = wait_status_at(at_b, id, "completed");
  EXPECT_EQ(done.at("answer"), "released");
  EXPECT_EQ(line_count(folder / "counter"), 1u);
  runner.kill_and_wait();
}

}  // namespace
}  // namespace agentworks::testing
