// The routes of a served Crew's runner (R-R1..R-R4), with the test as the runner: the Crew is registered from
// "another computer" (its folder never exists on the server's), the test claims its calls with the runner's own
// connection, reports what an execution would, and settles them. Every rule of the lease and of the runner's
// scope is reached on purpose: offline answers `unavailable` at once, a claim wins once, a lapsed lease
// interrupts and the runner is told, a cancel reaches the runner through its heartbeat, an upload for a settled
// call records nothing, a result is checked against the output schema, a runner's connection reaches nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

// The functions.json of the served Crew as its computer would send it: one plain function and one whose result
// has an output schema.
std::string served_functions() {
  json plain = {{"name", "hello"},
                {"description", "says hello"},
                {"inputs", {{"type", "object"}}},
                {"run", {{"command", json::array({"./tools/hello.sh"})}}}};
  json typed = plain;
  typed["name"] = "count";
  typed["output_schema"] = {{"type", "object"},
                            {"required", json::array({"n"})},
                            {"properties", {{"n", {{"type", "integer"}}}}}};
  return json{{"functions", json::array({plain, typed})}}.dump(2);
}

class CrewRunnerRoutes : public CrewTest {
 protected:
  // The folder on the serving computer: a path the server's computer does not have.
  const std::string remote_dir_ = "/nonexistent-on-this-server/home/alice/api";

  // A short lease by default, so lapses come quickly; a runner's parked claim lasts at most half of it.
  void start(int lease_seconds = 3) { start_server({"--call-lease-seconds", std::to_string(lease_seconds)}); }

  // Registers Crew NAME served from "laptop-b"; returns the runner's client.
  HttpClient register_served(const std::string& name, const std::string& functions = served_functions(),
                             const json& crew_file = nullptr) {
    const json body{{"crew_name", name},
                    {"dir", remote_dir_ + "/" + name},
                    {"serve", {{"host", "laptop-b"}, {"functions", functions}, {"crew", crew_file}}}};
    const json crew = http_json(owner_http(), "POST", "/v1/crews", body.dump(), 201);
    EXPECT_EQ(crew.at("served").at("host"), "laptop-b") << crew.dump();
    return HttpClient(owner_http().base_url(), crew.at("runner").at("token").get<std::string>());
  }
  static std::string runner_path(const std::string& crew, const std::string& rest) {
    return "/v1/runners/" + crew + rest;
  }
  json work(const HttpClient& runner, const std::string& crew, int wait_seconds = 0) {
    return http_json(runner, "POST", runner_path(crew, "/work"), json{{"wait_seconds", wait_seconds}}.dump(), 200);
  }
  json claim(const HttpClient& runner, const std::string& crew) {
    const json got = work(runner, crew);
    EXPECT_FALSE(got.at("call").is_null()) << got.dump();
    return got.at("call");
  }
  HttpResponse report(const HttpClient& runner, const std::string& crew, const std::string& call_id, const json& r) {
    return runner.post(runner_path(crew, "/calls/" + call_id + "/report"), r.dump());
  }
  HttpResponse outcome(const HttpClient& runner, const std::string& crew, const std::string& call_id, const json& o) {
    return runner.post(runner_path(crew, "/calls/" + call_id + "/outcome"), o.dump());
  }
  json heartbeat(const HttpClient& runner, const std::string& crew, const json& calls) {
    return http_json(runner, "POST", runner_path(crew, "/heartbeat"), json{{"calls", calls}}.dump(), 200);
  }
};

// R-R1: the server keeps the declaration the serving computer sent and never needs the folder; a declaration
// that fails the checks registers nothing; `crews show` says which computer serves it and whether it is there.
TEST_F(CrewRunnerRoutes, AServedCrewRegistersWithoutItsFolderOnTheServer_RR1) {
  start();
  ASSERT_FALSE(fs::exists(remote_dir_));
  const HttpResponse bad = owner_http().post(
      "/v1/crews", json{{"crew_name", "broken"},
                        {"dir", remote_dir_ + "/broken"},
                        {"serve", {{"host", "laptop-b"}, {"functions", R"({"functions": [{"name": "x"}]})"}}}}
                       .dump());
  EXPECT_EQ(bad.status, 400) << describe(bad);
  EXPECT_NE(bad.body.find("invalid_declaration"), std::string::npos) << bad.body;
  EXPECT_EQ(owner_http().get("/v1/crews/broken").status, 404);

  const HttpClient runner = register_served("api");
  json crew = http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200);
  EXPECT_EQ(crew.at("dir"), remote_dir_ + "/api");
  EXPECT_EQ(crew.at("functions").size(), 2u) << crew.dump();
  EXPECT_FALSE(crew.at("served").at("online")) << crew.dump();  // its runner has not come yet
  work(runner, "api");
  crew = http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200);
  EXPECT_TRUE(crew.at("served").at("online")) << crew.dump();
  EXPECT_FALSE(fs::exists(remote_dir_));
}

// R-R3: without its runner a served Crew refuses a call at once with `unavailable`, naming since when; nothing is
// queued for it.
TEST_F(CrewRunnerRoutes, AnOfflineRunnerMakesACallUnavailableAtOnce_RR3) {
  start();
  register_served("api");
  const HttpResponse refused = call(owner_http(), "api", "hello", json::object());
  EXPECT_EQ(refused.status, 503) << describe(refused);
  EXPECT_NE(refused.body.find("runner is offline since"), std::string::npos) << refused.body;
  const json calls = http_json(owner_http(), "GET", "/v1/calls", std::nullopt, 200);
  EXPECT_TRUE(calls.at("calls").empty()) << calls.dump();
}

// R-R1: a parked claim wakes when a call is admitted; the runner's claim takes it once (a second finds nothing),
// with a fresh secret and the declaration's hash; its reports show on the call; its one outcome settles it, and a
// second outcome is refused.
TEST_F(CrewRunnerRoutes, TheRunnerClaimsReportsAndSettlesACall_RR1) {
  start(30);  // the parked claim below must outlast the test's own steps on a loaded machine
  const HttpClient runner = register_served("api");
  EXPECT_TRUE(work(runner, "api").at("call").is_null());
  auto parked = std::async(std::launch::async, [&] { return work(runner, "api", 20); });
  ASSERT_TRUE(wait_until([&] { return http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200)
                                          .at("served").at("online").get<bool>(); }));
  const json made = call_ok("api", "hello", json{{"who", "b"}});
  const std::string id = made.at("call_id");
  EXPECT_EQ(made.at("status"), "running");
  EXPECT_TRUE(made.at("served").get<bool>());
  // The parked claim either was already waiting (woken: "again", and the next request claims) or came after the
  // call's commit (it claims at once): never an empty answer while a call waits.
  const json woke = parked.get();
  json claimed = woke.at("call");
  if (claimed.is_null()) {
    EXPECT_TRUE(woke.at("again").get<bool>()) << woke.dump();
    claimed = claim(runner, "api");
  }
  EXPECT_EQ(claimed.at("call_id"), id);
  EXPECT_EQ(claimed.at("arguments"), json({{"who", "b"}}));
  EXPECT_EQ(claimed.at("declaration_hash").get<std::string>().size(), 64u);
  EXPECT_EQ(claimed.at("token").get<std::string>().rfind("awc_", 0), 0u);
  EXPECT_TRUE(work(runner, "api").at("call").is_null());  // taken once

  const HttpResponse said = report(runner, "api", id,
                                   json{{"messages", {{{"kind", "progress"}, {"text", "half way"}}}},
                                        {"progress", "half way"}});
  ASSERT_EQ(said.status, 200) << describe(said);
  json seen = status(id);
  EXPECT_EQ(seen.at("progress"), "half way");
  EXPECT_EQ(seen.at("messages").back().at("text"), "half way");
  EXPECT_TRUE(seen.at("files").empty());
  bool claimed_event = false;
  for (const json& e : seen.at("events")) claimed_event = claimed_event || e.at("type") == "claimed";
  EXPECT_TRUE(claimed_event) << seen.dump();

  const HttpResponse done = outcome(runner, "api", id, json{{"status", "completed"}, {"answer", "HELLO FROM B"}});
  ASSERT_EQ(done.status, 200) << describe(done);
  seen = status(id);
  EXPECT_EQ(seen.at("status"), "completed");
  EXPECT_EQ(seen.at("answer"), "HELLO FROM B");
  const HttpResponse twice = outcome(runner, "api", id, json{{"status", "failed"}, {"error_code", "exit_status"}});
  EXPECT_EQ(twice.status, 409) << describe(twice);
  EXPECT_EQ(status(id).at("status"), "completed");
  const HttpResponse file = file_page(owner_http(), id, "result.json");
  EXPECT_EQ(file.status, 404) << describe(file);
}

// R-R3: a runner that stops renewing its lease leaves the call `interrupted`, never run again; its later uploads
// record nothing and its heartbeat names the call as settled, so it kills what is left.
TEST_F(CrewRunnerRoutes, ALapsedLeaseInterruptsTheCallAndTheRunnerIsTold_RR3) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  const std::string id = call_ok("api", "hello").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  const json ended = wait_terminal(id, std::chrono::seconds(20));
  EXPECT_EQ(ended.at("status"), "interrupted") << ended.dump();
  EXPECT_NE(ended.at("error").at("message").get<std::string>().find("runner"), std::string::npos) << ended.dump();
  const HttpResponse late = report(runner, "api", id, json{{"progress", "still here"}});
  EXPECT_EQ(late.status, 409) << describe(late);
  EXPECT_EQ(status(id).at("progress"), "");
  const json beat = heartbeat(runner, "api", json::array({id}));
  EXPECT_EQ(beat.at("settled"), json::array({id})) << beat.dump();
  EXPECT_EQ(outcome(runner, "api", id, json{{"status", "completed"}}).status, 409);
}

// R-R1, R-R3 with R-D3: a heartbeat renews the lease (the call outlives it) and carries the cancel to the runner, whose
// outcome then ends the call `cancelled`.
TEST_F(CrewRunnerRoutes, TheHeartbeatKeepsTheLeaseAndCarriesACancel_RR1_RR3_RD3) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  const std::string id = call_ok("api", "hello").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  // Beats at a runner's pace (a third of the lease) for longer than the 3 s lease.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    const json beat = heartbeat(runner, "api", json::array({id}));
    ASSERT_TRUE(beat.at("settled").empty()) << beat.dump();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  EXPECT_EQ(status(id).at("status"), "running");
  ASSERT_EQ(owner_http().post("/v1/calls/" + id + "/cancel", "{}").status, 200);
  EXPECT_EQ(heartbeat(runner, "api", json::array({id})).at("cancel"), json::array({id}));
  const HttpResponse done = outcome(runner, "api", id, json{{"status", "cancelled"}, {"error_code", "cancelled"}});
  ASSERT_EQ(done.status, 200) << describe(done);
  EXPECT_EQ(status(id).at("status"), "cancelled");
}

// R-R3: what a runner uploads is checked as the server's own execution would be: a report of a kind no execution
// sends is refused and records nothing; a result outside the output schema is the call's failure, never its result.
TEST_F(CrewRunnerRoutes, UploadsAreCheckedAgainstTheDeclaration_RR3) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  const std::string id = call_ok("api", "count").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  const HttpResponse odd = report(runner, "api", id, json{{"events", {{{"kind", "completed"}, {"text", ""}}}}});
  EXPECT_EQ(odd.status, 400) << describe(odd);
  const HttpResponse extra = report(runner, "api", id, json{{"status", "completed"}});
  EXPECT_EQ(extra.status, 400) << describe(extra);
  const HttpResponse wrong = outcome(runner, "api", id, json{{"status", "completed"}, {"result", {{"n", "three"}}}});
  ASSERT_EQ(wrong.status, 200) << describe(wrong);
  const json seen = status(id);
  EXPECT_EQ(seen.at("status"), "failed");
  EXPECT_EQ(seen.at("error").at("code"), "result_invalid") << seen.dump();
  EXPECT_TRUE(seen.at("result").is_null());
}

// R-R2: the runner's connection reaches only its own Crew's runner routes, and those routes take no other
// connection; another Crew's path is unknown to it.
TEST_F(CrewRunnerRoutes, ARunnersConnectionReachesOnlyItsRunnerRoutes_RR2) {
  start();
  const HttpClient runner = register_served("api");
  const HttpClient other_runner = register_served("web");
  EXPECT_EQ(runner.get("/v1/crews").status, 403);
  EXPECT_EQ(runner.post("/v1/messages", json{{"target", "x"}, {"message", "hi"}}.dump()).status, 403);
  EXPECT_EQ(owner_http().post(runner_path("api", "/work"), "{}").status, 403);
  EXPECT_EQ(runner.post(runner_path("web", "/work"), "{}").status, 404);
  work(runner, "api");
  const std::string id = call_ok("api", "hello").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  EXPECT_EQ(report(other_runner, "web", id, json{{"progress", "x"}}).status, 404);
}

// R-R2: stopping serving cancels the Crew's open calls and revokes its runner; new calls are unavailable; serving
// again (a new runner connection) brings it back.
TEST_F(CrewRunnerRoutes, StopServingCancelsTheCallsAndRevokesTheRunner_RR2) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  const std::string id = call_ok("api", "hello").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  const json stopped = http_json(owner_http(), "POST", "/v1/crews/api/stop-serving", "{}", 200);
  EXPECT_EQ(stopped.at("cancelled_calls"), json::array({id}));
  EXPECT_FALSE(stopped.at("served").at("serving").get<bool>());
  EXPECT_EQ(status(id).at("status"), "cancelled");
  EXPECT_EQ(runner.post(runner_path("api", "/work"), "{}").status, 401);
  EXPECT_EQ(call(owner_http(), "api", "hello", json::object()).status, 503);

  const json again = http_json(owner_http(), "POST", "/v1/crews/api/serve",
                               json{{"dir", remote_dir_ + "/api"},
                                    {"serve", {{"host", "laptop-c"}, {"functions", served_functions()}}}}.dump(),
                               200);
  const HttpClient next(owner_http().base_url(), again.at("runner").at("token").get<std::string>());
  work(next, "api");
  EXPECT_EQ(call(owner_http(), "api", "hello", json::object()).status, 201);
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200).at("served").at("host"), "laptop-c");
}

// R-R2: each call pins the declaration it was admitted under; a reload with other functions pins another.
TEST_F(CrewRunnerRoutes, EachCallPinsItsDeclaration_RR2) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  call_ok("api", "hello");
  const std::string first = claim(runner, "api").at("declaration_hash");
  json changed = parse_json(served_functions());
  changed["functions"][0]["description"] = "says hello, differently";
  http_json(owner_http(), "POST", "/v1/crews/api/reload", json{{"functions", changed.dump()}}.dump(), 200);
  call_ok("api", "hello");
  const std::string second = claim(runner, "api").at("declaration_hash");
  EXPECT_NE(first, second);
}

// R-R3: a served call runs on its runner's computer, so a restart of the (SQLite) server leaves it running: the
// runner renews it and settles it after the restart.
TEST_F(CrewRunnerRoutes, AServedCallOutlivesAServerRestart_RR3) {
  start();
  const HttpClient runner = register_served("api");
  work(runner, "api");
  const std::string id = call_ok("api", "hello").at("call_id");
  ASSERT_EQ(claim(runner, "api").at("call_id"), id);
  server_->stop();  // a graceful stop ends the calls this server runs; this one it never ran
  restart_server_same_port();
  EXPECT_EQ(status(id).at("status"), "running");
  EXPECT_TRUE(heartbeat(runner, "api", json::array({id})).at("settled").empty());
  ASSERT_EQ(outcome(runner, "api", id, json{{"status", "completed"}, {"answer", "after"}}).status, 200);
  EXPECT_EQ(status(id).at("status"), "completed");
}

}  // namespace
}  // namespace agentworks::testing

namespace agentworks::testing {
namespace {

// R-R1 with R-K1: a served Crew's computer runs its calls only; its agent (declared in the crew.json it sent) takes
// no messages through this server, and the refusal says so.
TEST_F(CrewRunnerRoutes, AServedCrewsAgentTakesNoMessages_RR1) {
  start();
  register_served("api", served_functions(), R"({"agent": {"claude": {"instructions": "Answer about the api."}}})");
  register_agent(owner(), "worker");
  const HttpResponse refused = owner_http().post(
      "/v1/messages", json{{"target", "crew:api"}, {"message", "hi"}, {"agent_name", "worker"}}.dump());
  EXPECT_EQ(refused.status, 403) << describe(refused);
  EXPECT_NE(refused.body.find("served from another computer"), std::string::npos) << refused.body;
}

}  // namespace
}  // namespace agentworks::testing
