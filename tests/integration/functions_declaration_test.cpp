// Declaring Crews and their functions (R-F1): register, list, show, reload, unregister; a bad functions.json is
// refused with the line and the reason and the previous declaration stays in force; folders the server cannot
// read or that sit inside another Crew are refused.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class FunctionsDeclaration : public CrewTest {
 protected:
  // The function names of a Crew object.
  static std::vector<std::string> names_of(const json& crew) {
    std::vector<std::string> out;
    for (const auto& f : crew.at("functions")) out.push_back(f.at("name").get<std::string>());
    return out;
  }
  json show(const std::string& crew) { return http_json(owner_http(), "GET", "/v1/crews/" + crew, std::nullopt, 200); }
  // Registers crew "api" with one function `hello`, then replaces its functions.json with `bad_text`: the
  // reload must be invalid_declaration naming line LINE (0: any line) and `reason`, and leave `hello`.
  void expect_reload_refused(const std::string& bad_text, int line, const std::string& reason) {
    make_crew("api", json::array({function_decl("hello")}), {{"tools/hello.sh", "echo hello"}});
    write_text(crew_dir("api") / ".agentworks" / "functions.json", bad_text);
    const HttpResponse r = reload_crew(owner_http(), "api");
    EXPECT_EQ(r.status, 400) << describe(r);
    EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
    const std::string message = parse_json(r.body).at("error").value("message", "");
    // The line, as "…/functions.json:LINE: reason".
    EXPECT_NE(message.find(line > 0 ? "functions.json:" + std::to_string(line) + ":" : "functions.json:"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    // The previous declaration stays in force: listed and callable.
    EXPECT_EQ(names_of(show("api")), std::vector<std::string>{"hello"});
    const json c = call_ok("api", "hello");
    EXPECT_EQ(wait_terminal(c.at("call_id").get<std::string>()).at("status"), "completed");
  }
};

// R-F1: a good declaration registers; the Crew object carries the functions as declared (runner command,
// output_schema null when absent), and GET /v1/crews/{crew} answers by name and by crew_id.
TEST_F(FunctionsDeclaration, RegisterShowsDeclaredFunctions_R_F1) {
  start_server();
  json counted = function_decl("word_count", {{"inputs", {{"type", "object"},
                                                          {"properties", {{"text", {{"type", "string"}}}}},
                                                          {"required", {"text"}},
                                                          {"additionalProperties", false}}},
                                              {"output_schema", {{"type", "object"},
                                                                 {"properties", {{"words", {{"type", "integer"}}}}},
                                                                 {"required", {"words"}}}},
                                              {"timeout_seconds", 600},
                                              {"allowed_callers", json::array()}});
  const json crew = make_crew("api", json::array({counted, function_decl("plain")}),
                              {{"tools/word_count.sh", "echo '{\"words\":1}' > \"$FUNCTION_RESULT_FILE\""},
                               {"tools/plain.sh", "echo plain"}});
  EXPECT_EQ(crew.value("crew_name", ""), "api") << crew.dump();
  EXPECT_EQ(crew.value("crew_id", "").rfind("crw_", 0), 0u) << crew.dump();
  EXPECT_EQ(crew.value("running", -1), 0) << crew.dump();
  EXPECT_EQ(crew.value("max_running", -1), 3) << crew.dump();
  EXPECT_EQ(fs::path(crew.value("dir", "")), crew_dir("api")) << crew.dump();
  ASSERT_EQ(names_of(crew), (std::vector<std::string>{"word_count", "plain"})) << crew.dump();
  const json& f = crew.at("functions").at(0);
  EXPECT_EQ(f.at("runner"), "command") << f.dump();
  EXPECT_EQ(f.at("timeout_seconds"), 600) << f.dump();
  EXPECT_EQ(f.at("inputs"), counted.at("inputs")) << f.dump();
  EXPECT_EQ(f.at("output_schema"), counted.at("output_schema")) << f.dump();
  EXPECT_TRUE(crew.at("functions").at(1).at("output_schema").is_null()) << crew.dump();

  EXPECT_EQ(show("api").at("crew_id"), crew.at("crew_id"));
  EXPECT_EQ(show(crew.at("crew_id").get<std::string>()).at("crew_name"), "api");
  const json listed = http_json(owner_http(), "GET", "/v1/crews", std::nullopt, 200);
  ASSERT_EQ(listed.at("crews").size(), 1u) << listed.dump();
  const json functions = http_json(owner_http(), "GET", "/v1/crews/api/functions", std::nullopt, 200);
  EXPECT_EQ(functions.at("crew_id"), crew.at("crew_id"));
  EXPECT_EQ(functions.at("functions").size(), 2u) << functions.dump();

  // A name taken is conflict; a bad name is invalid_name.
  const fs::path other = make_crew_dir("other");
  write_script(other, "tools/hello.sh", "echo hello");
  write_functions(other, json::array({function_decl("hello")}));
  const HttpResponse again = register_crew(owner_http(), "API", other);
  EXPECT_EQ(error_code_of(again.body), "conflict") << describe(again);
  const HttpResponse bad_name = register_crew(owner_http(), "-bad", crew_dir("other"));
  EXPECT_EQ(error_code_of(bad_name.body), "invalid_name") << describe(bad_name);
}

// R-F1: invalid JSON is refused at register with the line of the error; nothing is registered.
TEST_F(FunctionsDeclaration, InvalidJsonRefusedAtRegisterWithLine_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_script(dir, "tools/hello.sh", "echo hello");
  write_text(dir / ".agentworks" / "functions.json",
             "{\"functions\": [\n  {\"name\": \"hello\",\n   \"run\": {\"command\": [\"./tools/hello.sh\"]},,\n"
             "   \"inputs\": {\"type\": \"object\"}}\n]}\n");
  const HttpResponse r = register_crew(owner_http(), "api", dir);
  EXPECT_EQ(r.status, 400) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  EXPECT_NE(r.body.find("functions.json:3:"), std::string::npos) << "the line: " << describe(r);
  EXPECT_EQ(owner_http().get("/v1/crews/api").status, 404);
  EXPECT_TRUE(http_json(owner_http(), "GET", "/v1/crews", std::nullopt, 200).at("crews").empty());
}

// R-F1: at reload, invalid JSON is refused with its line and the previous declaration stays.
TEST_F(FunctionsDeclaration, InvalidJsonAtReloadKeepsPrevious_R_F1) {
  start_server();
  expect_reload_refused("{\"functions\": [\n  {\"name\": \"broken\"\n  \"run\": {}}\n]}\n", 3, "");
}

// R-F1: an unknown key is refused naming the key and its line.
TEST_F(FunctionsDeclaration, UnknownKeyRefusedKeepsPrevious_R_F1) {
  start_server();
  expect_reload_refused(
      "{\"functions\": [\n"
      "  {\"name\": \"hello\",\n"
      "   \"inputs\": {\"type\": \"object\"},\n"
      "   \"run\": {\"command\": [\"./tools/hello.sh\"]},\n"
      "   \"retries\": 3}\n"
      "]}\n",
      5, "retries");
}

// R-F1: an inputs schema that is not valid draft-07 is refused (a real validator checks it).
TEST_F(FunctionsDeclaration, InvalidSchemaRefusedKeepsPrevious_R_F1) {
  start_server();
  expect_reload_refused(
      "{\"functions\": [\n"
      "  {\"name\": \"hello\",\n"
      "   \"inputs\": {\"type\": \"strin\"},\n"
      "   \"run\": {\"command\": [\"./tools/hello.sh\"]}}\n"
      "]}\n",
      0, "inputs");
}

// R-F1: a command outside the project (a relative path leaving it, an absolute path elsewhere) is refused.
TEST_F(FunctionsDeclaration, CommandOutsideProjectRefusedKeepsPrevious_R_F1) {
  start_server();
  write_script(home_.path("crews"), "outside.sh", "echo outside");
  expect_reload_refused(
      "{\"functions\": [\n"
      "  {\"name\": \"hello\",\n"
      "   \"inputs\": {\"type\": \"object\"},\n"
      "   \"run\": {\"command\": [\"../outside.sh\"]}}\n"
      "]}\n",
      0, "command");
  write_text(crew_dir("api") / ".agentworks" / "functions.json",
             json{{"functions", json::array({function_decl("hello", {{"run", {{"command", {(home_.path("crews") / "outside.sh").string()}}}}})})}}
                 .dump(2));
  const HttpResponse absolute = reload_crew(owner_http(), "api");
  EXPECT_EQ(error_code_of(absolute.body), "invalid_declaration") << describe(absolute);
  EXPECT_EQ(names_of(show("api")), std::vector<std::string>{"hello"});
}

// R-F1: a missing folder, a file instead of a folder and (when not root) an unreadable folder are refused;
// a folder inside another Crew is a conflict.
TEST_F(FunctionsDeclaration, UnreadableOrNestedFolderRefused_R_F1) {
  start_server();
  make_crew("api", json::array({function_decl("hello")}), {{"tools/hello.sh", "echo hello"}});

  const HttpResponse missing = register_crew(owner_http(), "missing", home_.path("crews/nothing-here"));
  EXPECT_EQ(missing.status, 400) << describe(missing);
  EXPECT_EQ(error_code_of(missing.body), "invalid_declaration") << describe(missing);

  write_text(home_.path("crews/plain-file"), "not a folder\n");
  const HttpResponse file = register_crew(owner_http(), "file", home_.path("crews/plain-file"));
  EXPECT_EQ(error_code_of(file.body), "invalid_declaration") << describe(file);

  // Inside another Crew (even of the same account): conflict, and nothing registered.
  const fs::path nested = crew_dir("api") / "sub";
  fs::create_directories(nested / ".agentworks");
  write_script(nested, "tools/hello.sh", "echo nested");
  write_functions(nested, json::array({function_decl("hello")}));
  const HttpResponse inside = register_crew(owner_http(), "nested", nested);
  EXPECT_EQ(inside.status, 409) << describe(inside);
  EXPECT_EQ(error_code_of(inside.body), "conflict") << describe(inside);
  EXPECT_EQ(owner_http().get("/v1/crews/nested").status, 404);

  if (::geteuid() != 0) {  // root reads a mode-000 folder anyway
    const fs::path locked = make_crew_dir("locked");
    write_functions(locked, json::array({function_decl("hello")}));
    fs::permissions(locked, fs::perms::none);
    const HttpResponse unreadable = register_crew(owner_http(), "locked", locked);
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_EQ(error_code_of(unreadable.body), "invalid_declaration") << describe(unreadable);
  }
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/crews", std::nullopt, 200).at("crews").size(), 1u);
}

// R-F1: a FIFO (or any other non-regular file) as functions.json is refused at register and reload at once, with
// the reason, and the server goes on answering: it is never opened for a blocking read on the server's loop.
TEST_F(FunctionsDeclaration, FifoDeclarationRefusedWithoutBlockingTheServer_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("fifo");
  fs::create_directories(dir / ".agentworks");
  ASSERT_EQ(::mkfifo((dir / ".agentworks" / "functions.json").c_str(), 0600), 0);
  const HttpResponse fifo = owner_http().request(
      "POST", "/v1/crews", json{{"crew_name", "fifo"}, {"dir", dir.string()}}.dump(), {}, std::chrono::seconds(5));
  EXPECT_EQ(fifo.status, 400) << describe(fifo);
  EXPECT_EQ(error_code_of(fifo.body), "invalid_declaration") << describe(fifo);
  EXPECT_NE(fifo.body.find("FIFO"), std::string::npos) << describe(fifo);
  EXPECT_EQ(owner_http().get("/v1/health").status, 200);

  make_crew("api", json::array({function_decl("hello")}), {{"tools/hello.sh", "echo hello"}});
  const fs::path declared = crew_dir("api") / ".agentworks" / "functions.json";
  fs::remove(declared);
  ASSERT_EQ(::mkfifo(declared.c_str(), 0600), 0);
  const HttpResponse reload = owner_http().request("POST", "/v1/crews/api/reload", std::string("{}"), {},
                                                   std::chrono::seconds(5));
  EXPECT_EQ(reload.status, 400) << describe(reload);
  EXPECT_NE(reload.body.find("FIFO"), std::string::npos) << describe(reload);
  EXPECT_EQ(names_of(show("api")), std::vector<std::string>{"hello"});
}

// R-F1: an account other than the owner registers Crews only inside a Crew root (--crew-root); outside one every
// folder, present or not, gets the same `forbidden`, so the server tells it nothing of its file system; a link
// inside a root that leads out is refused the same way.
TEST_F(FunctionsDeclaration, OtherAccountsRegisterOnlyInsideACrewRoot_R_F1) {
  fs::create_directories(home_.path("crews"));
  start_server({"--crew-root", home_.path("crews").string()});
  Identity partner = add_account("partner");
  const fs::path inside = make_crew_dir("partner-api");
  write_script(inside, "tools/hello.sh", "echo hello");
  write_functions(inside, json::array({function_decl("hello")}));
  EXPECT_EQ(register_crew(partner.http, "api", inside).status, 201);

  const fs::path outside = home_.path("elsewhere/api");
  fs::create_directories(outside / ".agentworks");
  write_script(outside, "tools/hello.sh", "echo hello");
  write_functions(outside, json::array({function_decl("hello")}));
  const HttpResponse present = register_crew(partner.http, "out", outside);
  const HttpResponse absent = register_crew(partner.http, "out", home_.path("elsewhere/nothing"));
  const HttpResponse system = register_crew(partner.http, "out", "/etc");
  for (const HttpResponse* r : {&present, &absent, &system}) {
    EXPECT_EQ(r->status, 403) << describe(*r);
    EXPECT_EQ(error_code_of(r->body), "forbidden") << describe(*r);
    EXPECT_NE(r->body.find("not inside a Crew root"), std::string::npos) << describe(*r);
  }
  fs::create_directory_symlink(outside, home_.path("crews/link"));
  const HttpResponse link = register_crew(partner.http, "link", home_.path("crews/link"));
  EXPECT_EQ(error_code_of(link.body), "forbidden") << describe(link);
  // The owner is not bound to the roots.
  EXPECT_EQ(register_crew(owner_http(), "out", outside).status, 201);
}

// R-F1: without a Crew root only the owner registers Crews.
TEST_F(FunctionsDeclaration, WithoutACrewRootOnlyTheOwnerRegisters_R_F1) {
  start_server();
  Identity partner = add_account("partner");
  const fs::path dir = make_crew_dir("api");
  write_script(dir, "tools/hello.sh", "echo hello");
  write_functions(dir, json::array({function_decl("hello")}));
  const HttpResponse r = register_crew(partner.http, "api", dir);
  EXPECT_EQ(r.status, 403) << describe(r);
  EXPECT_NE(r.body.find("--crew-root"), std::string::npos) << describe(r);
  EXPECT_EQ(register_crew(owner_http(), "api", dir).status, 201);
}

// R-F1: a reload with a good file replaces the declaration; unregister is busy while a call runs, then removes the
// Crew; a second account never sees it.
TEST_F(FunctionsDeclaration, ReloadReplacesAndUnregisterWaitsForCalls_R_F1) {
  start_server();
  make_crew("api", json::array({function_decl("hold")}), {{"tools/hold.sh", blocking_script()}});
  write_script(crew_dir("api"), "tools/second.sh", "echo second");
  write_functions(crew_dir("api"), json::array({function_decl("hold"), function_decl("second")}));
  const HttpResponse reloaded = reload_crew(owner_http(), "api");
  ASSERT_EQ(reloaded.status, 200) << describe(reloaded);
  EXPECT_EQ(names_of(parse_json(reloaded.body)), (std::vector<std::string>{"hold", "second"}));

  const json held = call_ok("api", "hold");
  ASSERT_TRUE(wait_lines(crew_dir("api") / "started.log", 1));
  EXPECT_EQ(show("api").at("running"), 1);
  const HttpResponse busy = owner_http().del("/v1/crews/api");
  EXPECT_EQ(busy.status, 503) << describe(busy);
  EXPECT_EQ(error_code_of(busy.body), "busy") << describe(busy);
  open_gate(crew_dir("api"));
  EXPECT_EQ(wait_terminal(held.at("call_id").get<std::string>()).at("status"), "completed");
  ASSERT_TRUE(wait_until([&] { return show("api").value("running", -1) == 0; }));
  const json removed = http_json(owner_http(), "DELETE", "/v1/crews/api", std::nullopt, 200);
  EXPECT_EQ(removed.at("removed"), true);
  EXPECT_EQ(owner_http().get("/v1/crews/api").status, 404);
}

// R-F1 (CLI): crews register|list|show|reload|unregister and functions list with --json pass the server's
// objects through; a refused declaration exits 2 with invalid_declaration.
TEST_F(FunctionsDeclaration, CliCrewCommands_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_script(dir, "tools/hello.sh", "echo hello");
  write_functions(dir, json::array({function_decl("hello")}));
  const json crew = cli_ok(owner(), {"crews", "register", "api", "--dir", dir.string()});
  EXPECT_EQ(crew.value("crew_name", ""), "api") << crew.dump();
  EXPECT_EQ(cli_ok(owner(), {"crews", "list"}).at("crews").size(), 1u);
  EXPECT_EQ(cli_ok(owner(), {"crews", "show", "api"}).at("crew_id"), crew.at("crew_id"));
  const json listed = cli_ok(owner(), {"functions", "list", "--crew", "api"});
  ASSERT_EQ(listed.at("functions").size(), 1u) << listed.dump();
  EXPECT_EQ(listed.at("functions").at(0).at("name"), "hello");

  write_text(dir / ".agentworks" / "functions.json", "{\"functions\": [\n  {\"name\": }\n]}\n");
  const CliResult refused = owner().json({"crews", "reload", "api"});
  EXPECT_EQ(refused.exit_code, 2) << refused.describe();
  EXPECT_EQ(refused.error_code(), "invalid_declaration") << refused.describe();
  write_functions(dir, json::array({function_decl("hello")}));
  EXPECT_EQ(cli_ok(owner(), {"crews", "reload", "api"}).at("functions").size(), 1u);

  const json removed = cli_ok(owner(), {"crews", "unregister", "api"});
  EXPECT_EQ(removed.at("removed"), true) << removed.dump();
  const CliResult gone = owner().json({"crews", "show", "api"});
  EXPECT_EQ(gone.exit_code, 4) << gone.describe();
  EXPECT_EQ(gone.error_code(), "not_found") << gone.describe();
}

}  // namespace
}  // namespace agentworks::testing
