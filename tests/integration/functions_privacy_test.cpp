// Who may see and call what (R-F4 privacy, R-F1 allowed_callers): another account gets not_found for the Crew,
// its functions and every call route, knowing the crew_id or call_id is not enough; allowed_callers admits a
// named account by crew_id to the functions that list it, and only to its own calls.
#include <gtest/gtest.h>

#include <string>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

class FunctionsPrivacy : public CrewTest {
 protected:
  void expect_not_found(const HttpResponse& r, const std::string& what) {
    EXPECT_EQ(r.status, 404) << what << " " << describe(r);
    EXPECT_EQ(error_code_of(r.body), "not_found") << what << " " << describe(r);
  }
};

// R-F4: a second account sees nothing of the owner's Crew or calls, by name or id; the outputs never leak.
TEST_F(FunctionsPrivacy, SecondAccountGetsNotFound_R_F4) {
  start_server();
  const json crew = make_crew("api", json::array({function_decl("ask"), function_decl("report")}),
                              {{"tools/ask.sh", CrewTest::blocking_script()},
                               {"tools/report.sh", "echo private-answer\necho private-file > \"$FUNCTION_OUTPUT_DIR/r.txt\""}});
  const std::string crew_id = crew.at("crew_id").get<std::string>();
  const std::string done_id = call_ok("api", "report").at("call_id").get<std::string>();
  ASSERT_EQ(wait_terminal(done_id).at("status"), "completed");
  const std::string open_id = call_ok("api", "ask").at("call_id").get<std::string>();

  Identity other = add_account("other");
  for (const std::string& crew_ref : {std::string("api"), crew_id}) {
    expect_not_found(other.http.get("/v1/crews/" + crew_ref), "show " + crew_ref);
    expect_not_found(other.http.get("/v1/crews/" + crew_ref + "/functions"), "functions " + crew_ref);
    expect_not_found(call(other.http, crew_ref, "report", json::object()), "call " + crew_ref);
    expect_not_found(other.http.post("/v1/crews/" + crew_ref + "/reload", "{}"), "reload " + crew_ref);
    expect_not_found(other.http.del("/v1/crews/" + crew_ref), "unregister " + crew_ref);
  }
  EXPECT_TRUE(http_json(other.http, "GET", "/v1/crews", std::nullopt, 200).at("crews").empty());
  for (const std::string& id : {done_id, open_id}) {
    const HttpResponse s = status_as(other.http, id);
    expect_not_found(s, "status " + id);
    EXPECT_EQ(s.body.find("private"), std::string::npos);
    const HttpResponse f = file_page(other.http, id, "r.txt");
    expect_not_found(f, "file " + id);
    EXPECT_EQ(f.body.find("private"), std::string::npos);
    expect_not_found(other.http.post("/v1/calls/" + id + "/replies",
                                     json{{"request_id", "req_x"}, {"answer", "a"}}.dump()),
                     "reply " + id);
  }
  const CliResult cli = other.cli.json({"functions", "call-status", "--call", done_id});
  EXPECT_EQ(cli.exit_code, 4) << cli.describe();
  EXPECT_EQ(cli.error_code(), "not_found") << cli.describe();
  EXPECT_EQ(call_folder_count("api"), 2u) << "refused calls create nothing";

  // The owner's second device (another login of the same account) reads them.
  Identity laptop = create_login(owner_token(), "laptop");
  EXPECT_EQ(status_as(laptop.http, done_id).status, 200);
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(open_id).at("status"), "completed");
}

// R-F1 R-F4: allowed_callers lists the second account: it lists and calls only that function, by crew_id (names
// resolve in the caller's own account); it reads its own call, the owner reads it too, a third account cannot,
// and the caller cannot read the owner's calls.
TEST_F(FunctionsPrivacy, AllowedCallersAdmitsNamedAccountByCrewId_R_F1_R_F4) {
  start_server();
  Identity partner = add_account("partner");
  Identity stranger = add_account("stranger");
  const std::string partner_account = account_id_of(partner.http);
  const json crew = make_crew(
      "api",
      json::array({function_decl("shared", {{"allowed_callers", {partner_account}}}), function_decl("internal")}),
      {{"tools/shared.sh", "echo \"shared for $AGENTWORKS_CALL_ID\"\necho s > \"$FUNCTION_OUTPUT_DIR/out.txt\""},
       {"tools/internal.sh", "echo internal"}});
  const std::string crew_id = crew.at("crew_id").get<std::string>();

  const json listed = http_json(partner.http, "GET", "/v1/crews/" + crew_id + "/functions", std::nullopt, 200);
  ASSERT_EQ(listed.at("functions").size(), 1u) << listed.dump();
  EXPECT_EQ(listed.at("functions").at(0).at("name"), "shared");
  expect_not_found(partner.http.get("/v1/crews/api/functions"), "by name in the partner's account");
  expect_not_found(partner.http.get("/v1/crews/" + crew_id), "the Crew object is the owner's");
  expect_not_found(call(partner.http, crew_id, "internal", json::object()), "a function not admitting it");

  const HttpResponse accepted = call(partner.http, crew_id, "shared", json::object(), {{"wait_seconds", 20}});
  ASSERT_EQ(accepted.status, 201) << describe(accepted);
  const json partner_call = parse_json(accepted.body);
  const std::string id = partner_call.at("call_id").get<std::string>();
  const json seen = parse_json(
      wait_until([&] { return is_terminal_status(parse_json(status_as(partner.http, id).body).value("status", "")); })
          ? status_as(partner.http, id).body
          : "{}");
  EXPECT_EQ(seen.value("status", ""), "completed") << seen.dump();
  EXPECT_EQ(file_page(partner.http, id, "out.txt").status, 200);
  EXPECT_EQ(status(id).at("status"), "completed") << "the owner reads calls made to its Crew";
  expect_not_found(status_as(stranger.http, id), "a third account");
  expect_not_found(call(stranger.http, crew_id, "shared", json::object()), "a third account calling");
  // The partner's CLI calls by crew_id too.
  const json via_cli = cli_ok(partner.cli, {"functions", "call", "--crew", crew_id, "--function", "shared", "--args",
                                            "{}", "--wait", "20"});
  EXPECT_EQ(via_cli.at("status"), "completed") << via_cli.dump();

  const std::string owner_call = call_ok("api", "internal").at("call_id").get<std::string>();
  wait_terminal(owner_call);
  expect_not_found(status_as(partner.http, owner_call), "the owner's own call");
}

}  // namespace
}  // namespace agentworks::testing
