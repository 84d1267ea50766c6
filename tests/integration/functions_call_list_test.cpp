// The recent-calls list (GET /v1/calls and `agentworks functions calls`): newest first, paged by next_cursor,
// filtered by Crew, and showing a connection exactly the calls it may see: a login the calls its account made and
// the calls of its account's Crews, a child connection only its own, another account none. Bad parameters are
// bad_request.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

class FunctionsCallList : public CrewTest {
 protected:
  json list_as(const HttpClient& http, const std::string& query = "") {
    return http_json(http, "GET", "/v1/calls" + query, std::nullopt, 200);
  }
  // The call ids of a page, in the page's order.
  static std::vector<std::string> ids_of(const json& page) {
    std::vector<std::string> ids;
    for (const json& c : page.at("calls")) ids.push_back(c.at("call_id").get<std::string>());
    return ids;
  }
  // A finished call of `function` on `crew` made by `http`.
  std::string finished_call(const HttpClient& http, const std::string& crew, const std::string& function) {
    const HttpResponse r = call(http, crew, function, json::object());
    if (r.status != 201) throw std::runtime_error("call refused: " + describe(r));
    const std::string id = json::parse(r.body).at("call_id").get<std::string>();
    json last;
    const bool ended = wait_until([&] {  // read as its caller: the owner may not see a call of another's Crew
      const HttpResponse s = status_as(http, id);
      if (s.status != 200) return false;
      last = json::parse(s.body);
      return is_terminal_status(last.value("status", ""));
    }, std::chrono::seconds(30));
    if (!ended || last.value("status", "") != "completed")
      throw std::runtime_error("call " + id + " did not complete: " + last.dump());
    return id;
  }
};

TEST_F(FunctionsCallList, NewestFirstAndPagedByBefore) {
  start_server();
  make_crew("api", json::array({function_decl("quick"), function_decl("hold")}),
            {{"tools/quick.sh", "echo done"}, {"tools/hold.sh", CrewTest::blocking_script()}});
  std::vector<std::string> made;
  for (int i = 0; i < 4; ++i) made.push_back(finished_call(owner_http(), "api", "quick"));
  const std::string open_id = call_ok("api", "hold").at("call_id").get<std::string>();
  made.push_back(open_id);
  const std::vector<std::string> newest_first(made.rbegin(), made.rend());

  const json all = list_as(owner_http());
  EXPECT_EQ(ids_of(all), newest_first);
  EXPECT_TRUE(all.at("next_cursor").is_null()) << all.dump();
  const json& open = all.at("calls").at(0);
  EXPECT_EQ(open.at("crew_name"), "api");
  EXPECT_EQ(open.at("function"), "hold");
  EXPECT_EQ(open.at("status"), "running");
  EXPECT_TRUE(open.at("finished_at").is_null()) << open.dump();
  EXPECT_EQ(open.at("caller").at("connection_id"), owner_connection_id());
  EXPECT_EQ(open.at("caller").at("account_id"), account_id_of(owner_http()));
  EXPECT_TRUE(open.at("caller").at("agent_name").is_null()) << "a login connection speaks for no agent";
  EXPECT_FALSE(open.contains("arguments")) << "the list never shows arguments or outputs";
  const json& done = all.at("calls").at(1);
  EXPECT_EQ(done.at("status"), "completed");
  EXPECT_TRUE(done.at("finished_at").is_number_integer()) << done.dump();
  EXPECT_TRUE(done.at("created_at").is_number_integer()) << done.dump();

  // Pages of two: 2 + 2 + 1, each older than the one before, none repeated, the last without a cursor.
  std::vector<std::string> paged;
  std::string query = "?limit=2";
  for (int page = 0; page < 3; ++page) {
    const json p = list_as(owner_http(), query);
    const auto ids = ids_of(p);
    EXPECT_EQ(ids.size(), page < 2 ? 2u : 1u) << p.dump();
    paged.insert(paged.end(), ids.begin(), ids.end());
    if (page < 2) {
      ASSERT_TRUE(p.at("next_cursor").is_string()) << p.dump();
      query = "?limit=2&before=" + p.at("next_cursor").get<std::string>();
    } else {
      EXPECT_TRUE(p.at("next_cursor").is_null()) << p.dump();
    }
  }
  EXPECT_EQ(paged, newest_first);

  // A call made after a page was read comes first in a new list and never into the older pages.
  open_gate(crew_dir("api"));
  ASSERT_EQ(wait_terminal(open_id).at("status"), "completed");
  const json first = list_as(owner_http(), "?limit=2");
  const std::string latest = finished_call(owner_http(), "api", "quick");
  const json older = list_as(owner_http(), "?limit=2&before=" + first.at("next_cursor").get<std::string>());
  EXPECT_EQ(ids_of(older), (std::vector<std::string>{made[2], made[1]}));
  EXPECT_EQ(ids_of(list_as(owner_http(), "?limit=1")), std::vector<std::string>{latest});
  EXPECT_EQ(list_as(owner_http()).at("calls").at(1).at("status"), "completed") << "the held call has finished";
}

TEST_F(FunctionsCallList, CrewFilterByNameOrId) {
  start_server();
  make_crew("api", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo api"}});
  const json web = make_crew("Web", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo web"}});
  const std::string api1 = finished_call(owner_http(), "api", "quick");
  const std::string web1 = finished_call(owner_http(), "Web", "quick");
  const std::string api2 = finished_call(owner_http(), "api", "quick");

  EXPECT_EQ(ids_of(list_as(owner_http(), "?crew=api")), (std::vector<std::string>{api2, api1}));
  EXPECT_EQ(ids_of(list_as(owner_http(), "?crew=web")), std::vector<std::string>{web1}) << "names fold case";
  EXPECT_EQ(ids_of(list_as(owner_http(), "?crew=" + web.at("crew_id").get<std::string>())),
            std::vector<std::string>{web1});
  EXPECT_TRUE(list_as(owner_http(), "?crew=nosuch").at("calls").empty());
  const json paged = list_as(owner_http(), "?crew=api&limit=1");
  EXPECT_EQ(ids_of(paged), std::vector<std::string>{api2});
  EXPECT_EQ(ids_of(list_as(owner_http(), "?crew=api&before=" + paged.at("next_cursor").get<std::string>())),
            std::vector<std::string>{api1}) << "the cursor pages within the filter";
}

// Exactly what GET /v1/calls/{id} shows the same connection: the owner sees its children's calls and the calls
// another account made of its Crew; that caller sees only its own; a child only its own; a stranger nothing.
TEST_F(FunctionsCallList, EachConnectionSeesOnlyItsCalls) {
  std::filesystem::create_directories(home_.path("crews"));
  start_server({"--crew-root", home_.path("crews").string()});  // the partner registers a Crew of its own
  Identity partner = add_account("partner");
  Identity stranger = add_account("stranger");
  const json crew = make_crew(
      "api", json::array({function_decl("quick", {{"allowed_callers", {account_id_of(partner.http)}}})}),
      {{"tools/quick.sh", "echo hi"}});
  const std::string crew_id = crew.at("crew_id").get<std::string>();
  register_agent(owner(), "worker");
  cli_ok(owner(), {"agents", "grant", "worker", "--functions", "api"});  // a chat calls with the person's grant
  Identity child = create_child(owner_token(), "worker");

  const std::string by_owner = finished_call(owner_http(), "api", "quick");
  const std::string by_child = finished_call(child.http, "api", "quick");
  const std::string by_partner = finished_call(partner.http, crew_id, "quick");
  // The partner's own Crew: the owner neither made these calls nor owns the Crew.
  const std::filesystem::path partner_dir = make_crew_dir("tools");
  write_script(partner_dir, "tools/quick.sh", "echo partner");
  write_functions(partner_dir, json::array({function_decl("quick")}));
  ASSERT_EQ(register_crew(partner.http, "tools", partner_dir).status, 201);
  const std::string partner_own = finished_call(partner.http, "tools", "quick");

  EXPECT_EQ(ids_of(list_as(owner_http())), (std::vector<std::string>{by_partner, by_child, by_owner}));
  EXPECT_EQ(ids_of(list_as(partner.http)), (std::vector<std::string>{partner_own, by_partner}));
  EXPECT_EQ(ids_of(list_as(child.http)), std::vector<std::string>{by_child});
  EXPECT_TRUE(list_as(stranger.http).at("calls").empty());
  EXPECT_TRUE(list_as(stranger.http, "?crew=" + crew_id).at("calls").empty());

  const json child_view = list_as(child.http).at("calls").at(0);
  EXPECT_EQ(child_view.at("caller").at("agent_name"), "worker");
  EXPECT_EQ(child_view.at("caller").at("connection_id"), child.connection_id);
  const json owner_view = list_as(owner_http()).at("calls").at(0);
  EXPECT_EQ(owner_view.at("caller").at("account_id"), account_id_of(partner.http));
  // Every listed call is one its reader may open.
  for (const Identity* who : {&partner, &child})
    for (const std::string& id : ids_of(list_as(who->http))) EXPECT_EQ(status_as(who->http, id).status, 200) << id;
}

TEST_F(FunctionsCallList, BadParametersAreBadRequest) {
  start_server();
  make_crew("api", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo hi"}});
  const std::string id = finished_call(owner_http(), "api", "quick");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"?limit=0", "limit must be an integer from 1 to 100"},
      {"?limit=101", "limit must be an integer from 1 to 100"},
      {"?limit=ten", "limit must be an integer from 1 to 100"},
      {"?before=42", "before must be a cursor like c42"},
      {"?before=c0", "before must be a cursor like c42"},
      {"?before=c-1", "before must be a cursor like c42"},
      {"?before=m3", "before must be a cursor like c42"},
      {"?crew=no%20spaces", "crew must be a Crew name"},
      {"?crew=", "crew must be a Crew name"},
      {"?status=running", "unknown query parameter 'status'"},
      {"?limit=1&limit=2", "given twice"},
  };
  for (const auto& [query, message] : bad) {
    const HttpResponse r = owner_http().get("/v1/calls" + query);
    EXPECT_EQ(r.status, 400) << query << " " << describe(r);
    EXPECT_EQ(error_code_of(r.body), "bad_request") << query << " " << describe(r);
    EXPECT_NE(r.body.find(message), std::string::npos) << query << " " << describe(r);
  }
  EXPECT_EQ(ids_of(list_as(owner_http())), std::vector<std::string>{id}) << "the refused reads changed nothing";
}

TEST_F(FunctionsCallList, CliListsPagesAndFilters) {
  start_server();
  make_crew("api", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo api"}});
  make_crew("web", json::array({function_decl("quick")}), {{"tools/quick.sh", "echo web"}});
  const std::string api1 = finished_call(owner_http(), "api", "quick");
  const std::string web1 = finished_call(owner_http(), "web", "quick");
  const std::string api2 = finished_call(owner_http(), "api", "quick");

  const json all = cli_ok(owner(), {"functions", "calls"});
  EXPECT_EQ(all, list_as(owner_http())) << "--json is the server's page as it is";
  const json page = cli_ok(owner(), {"functions", "calls", "--limit", "2"});
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{api2, web1}));
  const std::string cursor = page.at("next_cursor").get<std::string>();
  EXPECT_EQ(ids_of(cli_ok(owner(), {"functions", "calls", "--limit", "2", "--before", cursor})),
            std::vector<std::string>{api1});
  EXPECT_EQ(ids_of(cli_ok(owner(), {"functions", "calls", "--crew", "api"})), (std::vector<std::string>{api2, api1}));

  const CliResult text = owner().run({"functions", "calls", "--limit", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find(api2 + "  api/quick  completed"), std::string::npos) << text.out;
  EXPECT_LT(text.out.find(api2), text.out.find(web1)) << text.out;
  EXPECT_NE(text.out.find("  by you\n"), std::string::npos) << "as the status page says it: " << text.out;
  EXPECT_EQ(text.out.find("by conn_"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("older calls: agentworks functions calls --before " + cursor), std::string::npos) << text.out;
  const CliResult none = owner().run({"functions", "calls", "--crew", "nosuch"});
  ASSERT_EQ(none.exit_code, 0) << none.describe();
  EXPECT_NE(none.out.find("no calls"), std::string::npos) << none.out;

  for (const std::vector<std::string>& args : {std::vector<std::string>{"functions", "calls", "--limit", "0"},
                                               std::vector<std::string>{"functions", "calls", "--limit", "101"},
                                               std::vector<std::string>{"functions", "calls", "--before", "x"}}) {
    const CliResult r = owner().json(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.error_code(), "bad_request") << r.describe();
  }
}

}  // namespace
}  // namespace agentworks::testing
