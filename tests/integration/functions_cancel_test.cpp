// Cancel (R-D3): a running or waiting call asked to end has its whole process tree killed and ends `cancelled`,
// holding its Crew slot until the tree is gone; a pending question is withdrawn; a call that already ended keeps
// its outcome and the answer says so; repeating a cancel changes nothing; only the caller's account and the Crew's
// owner may cancel. The same through the CLI (`functions cancel`).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"
#include "testing/binaries.hpp"

namespace agentworks::testing {
namespace {

class FunctionsCancel : public CrewTest {
 protected:
  HttpResponse cancel(const HttpClient& http, const std::string& id, const json& body = json::object()) {
    return http.post("/v1/calls/" + id + "/cancel", body.dump());
  }
  json cancel_ok(const std::string& id, const json& body = json::object()) {
    return http_json(owner_http(), "POST", "/v1/calls/" + id + "/cancel", body.dump(), 200);
  }
  static bool has_event(const json& call, const std::string& type) {
    const auto events = event_types(call);
    return std::find(events.begin(), events.end(), type) != events.end();
  }
};

// A running command's tree (a shell and the sleep under it) is killed; the call ends cancelled with its messages
// kept; the slot of a one-call Crew is free again only after that, and a later call runs.
TEST_F(FunctionsCancel, RunningCallEndsCancelledWithItsTreeGone_R_D3) {
  start_server({"--crew-max-running", "1"});
  make_crew("api", json::array({function_decl("hold")}),
            {{"tools/hold.sh", "echo working >&2\n" + blocking_script()}});
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  wait_status(id, [](const json& c) { return !c.at("messages").empty(); });
  ASSERT_FALSE(processes_in(crew_dir("api")).empty()) << "the execution runs in the Crew folder";

  const json asked = cancel_ok(id);
  EXPECT_EQ(asked.at("call_id"), id);
  EXPECT_TRUE(asked.at("cancel") == "requested" || asked.at("cancel") == "cancelled") << asked.dump();
  EXPECT_TRUE(asked.at("cancel_requested_at").is_number_integer()) << asked.dump();

  const json done = wait_terminal(id);
  EXPECT_EQ(done.at("status"), "cancelled") << done.dump();
  EXPECT_EQ(done.at("error").at("code"), "cancelled") << done.dump();
  EXPECT_TRUE(done.at("finished_at").is_number_integer());
  EXPECT_TRUE(processes_in(crew_dir("api")).empty()) << "an outcome is reported only once the tree is gone";
  EXPECT_EQ(message_texts(done), std::vector<std::string>{"working"}) << "a cancelled call keeps its messages";
  EXPECT_TRUE(has_event(done, "cancel_requested")) << done.dump();
  EXPECT_TRUE(has_event(done, "cancelled")) << done.dump();
  EXPECT_TRUE(std::filesystem::is_directory(call_dir("api", id))) << "and its folder";

  // The slot is free: the next call of the one-call Crew is accepted and runs.
  open_gate(crew_dir("api"));
  const std::string next = call_ok("api", "hold").at("call_id").get<std::string>();
  EXPECT_EQ(wait_terminal(next).at("status"), "completed");
}

// A waiting call: its question is withdrawn (no longer pending, a reply is a conflict), and it ends cancelled.
TEST_F(FunctionsCancel, WaitingCallWithdrawsItsQuestion_R_D3) {
  start_server();
  make_crew("api", json::array({function_decl("asks")}),
            {{"tools/asks.sh", "answer=$('" + cli_binary() + "' functions ask --question 'Which branch?') || exit 7\n"
                               "echo \"answer=$answer\""}});
  const std::string id = call_ok("api", "asks").at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return c.value("status", "") == "waiting_input"; });
  const std::string request = waiting.at("pending_inputs").at(0).at("request_id").get<std::string>();

  const json ended = cancel_ok(id, json{{"wait_seconds", 25}});
  EXPECT_EQ(ended.at("cancel"), "cancelled") << "wait_seconds waits for the end: " << ended.dump();
  EXPECT_EQ(ended.at("status"), "cancelled") << ended.dump();
  EXPECT_TRUE(ended.at("pending_inputs").empty()) << "the question was withdrawn: " << ended.dump();
  const HttpResponse reply =
      owner_http().post("/v1/calls/" + id + "/replies", json{{"request_id", request}, {"answer", "main"}}.dump());
  EXPECT_EQ(reply.status, 409) << describe(reply);
  EXPECT_EQ(error_code_of(reply.body), "conflict") << describe(reply);
  EXPECT_TRUE(processes_in(crew_dir("api")).empty());
}

// An ended call keeps its outcome (completion won the race, and the answer says so); a second cancel of a
// cancelled call says cancelled and changes nothing.
TEST_F(FunctionsCancel, EndedCallKeepsItsOutcomeAndCancelIsIdempotent_R_D3) {
  start_server();
  make_crew("api", json::array({function_decl("quick"), function_decl("hold")}),
            {{"tools/quick.sh", "echo done"}, {"tools/hold.sh", blocking_script()}});
  const std::string quick = call_ok("api", "quick").at("call_id").get<std::string>();
  const json completed = wait_terminal(quick);
  ASSERT_EQ(completed.at("status"), "completed");
  const json late = cancel_ok(quick);
  EXPECT_EQ(late.at("cancel"), "already_ended") << late.dump();
  EXPECT_EQ(late.at("status"), "completed");
  EXPECT_EQ(answer_of(late), "done");
  EXPECT_TRUE(late.at("cancel_requested_at").is_null()) << "nothing changed: " << late.dump();
  EXPECT_EQ(status(quick).at("events"), completed.at("events")) << "no event was added";

  const std::string held = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  EXPECT_EQ(cancel_ok(held, json{{"wait_seconds", 25}}).at("cancel"), "cancelled");
  const json first = status(held);
  const json again = cancel_ok(held);
  EXPECT_EQ(again.at("cancel"), "cancelled") << again.dump();
  EXPECT_EQ(again.at("cancel_requested_at"), first.at("cancel_requested_at"));
  EXPECT_EQ(status(held).at("events"), first.at("events")) << "a repeated cancel adds nothing";
}

// Only the caller's account and the Crew's owner may cancel: another account is told not_found, exactly as for a
// call that does not exist, and the call runs on. Bad input is refused and changes nothing.
TEST_F(FunctionsCancel, OthersAndBadInputChangeNothing_R_D3) {
  start_server();
  make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  Identity other = add_account("other");
  const HttpResponse foreign = cancel(other.http, id);
  EXPECT_EQ(foreign.status, 404) << describe(foreign);
  EXPECT_EQ(error_code_of(foreign.body), "not_found");
  EXPECT_EQ(error_code_of(cancel(owner_http(), "call_unknown").body), "not_found");
  for (const json& bad : {json{{"wait_seconds", 26}}, json{{"wait_seconds", "5"}}, json{{"reason", "x"}}}) {
    const HttpResponse r = cancel(owner_http(), id, bad);
    EXPECT_EQ(r.status, 400) << bad.dump() << " " << describe(r);
    EXPECT_EQ(error_code_of(r.body), "bad_request") << describe(r);
  }
  const json still = status(id);
  EXPECT_EQ(still.at("status"), "running") << still.dump();
  EXPECT_TRUE(still.at("cancel_requested_at").is_null());
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(id).at("status"), "completed");
}

// The CLI: `functions cancel --call ID --wait 25` prints what happened and, with --json, the Call with `cancel`;
// its usage errors need no login round trip.
TEST_F(FunctionsCancel, CliCancelsAndSaysWhatHappened_R_D3) {
  start_server();
  make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  const std::string id = call_ok("api", "hold").at("call_id").get<std::string>();
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  const json ended = cli_ok(owner(), {"functions", "cancel", "--call", id, "--wait", "25"});
  EXPECT_EQ(ended.at("cancel"), "cancelled") << ended.dump();
  EXPECT_EQ(ended.at("status"), "cancelled");
  const CliResult text = owner().run({"functions", "cancel", "--call", id});
  EXPECT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("cancelled"), std::string::npos) << text.out;
  const CliResult bad = owner().json({"functions", "cancel", "--call", id, "--wait", "99"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  const CliResult missing = owner().json({"crews", "cancel", "--call", "call_unknown"});
  EXPECT_EQ(missing.exit_code, 4) << missing.describe();
  EXPECT_EQ(missing.error_code(), "not_found") << missing.describe();
}

}  // namespace
}  // namespace agentworks::testing
