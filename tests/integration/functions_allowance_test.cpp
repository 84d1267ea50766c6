// What a Crew's agent functions may use (R-F1 "Declaring"): a declaration that asks for a tool set or
// sandbox wider than the person allowed for that Crew is refused at register/reload, naming the line, and the
// declaration in force stays; the allowance is set at register or with `crews allow`, and cannot be narrowed below
// the declaration in force. These tests only register, reload and show: no agent function is called.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class FunctionsAllowance : public CrewTest {
 protected:
  static json claude_decl(const std::string& name, const json& tools, const std::string& mode = "default") {
    return {{"name", name},
            {"description", "an agent function"},
            {"inputs", {{"type", "object"}}},
            {"run", {{"claude", {{"prompt", "Review the project"}, {"allowed_tools", tools}, {"permission_mode", mode}}}}}};
  }
  static json codex_decl(const std::string& name, const std::string& sandbox) {
    return {{"name", name},
            {"inputs", {{"type", "object"}}},
            {"run", {{"codex", {{"prompt", "Fix the tests"}, {"sandbox", sandbox}}}}}};
  }
  // The 1-based line of the first line of DIR's functions.json holding `needle`.
  static int line_of(const fs::path& dir, const std::string& needle) {
    std::ifstream in(dir / ".agentworks" / "functions.json");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (line.find(needle) != std::string::npos) return n;
    return 0;
  }
  HttpResponse register_with(const std::string& name, const fs::path& dir, const json& allow) {
    return owner_http().post("/v1/crews", json{{"crew_name", name}, {"dir", dir.string()}, {"allow", allow}}.dump());
  }
  HttpResponse allow(const std::string& crew, const json& body) {
    return owner_http().post("/v1/crews/" + crew + "/allow", body.dump());
  }
  json show(const std::string& crew) { return http_json(owner_http(), "GET", "/v1/crews/" + crew, std::nullopt, 200); }
  static std::string message_of(const HttpResponse& r) {
    return parse_json(r.body).at("error").value("message", "");
  }
  static std::vector<std::string> names_of(const json& crew) {
    std::vector<std::string> out;
    for (const auto& f : crew.at("functions")) out.push_back(f.at("name").get<std::string>());
    return out;
  }
  // The hello command Crew "api", registered with the default allowance.
  fs::path hello_crew() {
    make_crew("api", json::array({function_decl("hello")}), {{"tools/hello.sh", "echo hello"}});
    return crew_dir("api");
  }
};

// R-F1: without `allow` a Crew gets the default allowance, shown on the Crew object.
TEST_F(FunctionsAllowance, DefaultAllowanceIsShown_R_F1) {
  start_server();
  hello_crew();
  const json a = show("api").at("allow");
  EXPECT_EQ(a.at("claude_tools"), json::array({"Read", "Grep", "Glob", "Write", "Edit"})) << a.dump();
  EXPECT_EQ(a.at("codex_sandbox"), "workspace-write") << a.dump();
}

// R-F1: a Claude function declaring a tool beyond the default is refused at register, at the tool's line, with the
// `crews allow` that would admit it; nothing is registered.
TEST_F(FunctionsAllowance, ClaudeToolBeyondDefaultRefusedAtRegisterWithLine_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_functions(dir, json::array({claude_decl("review", {"Read", "Bash(git diff:*)"})}));
  const HttpResponse r = register_crew(owner_http(), "api", dir);
  EXPECT_EQ(r.status, 400) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  const std::string m = message_of(r);
  const int line = line_of(dir, "\"Bash(git diff:*)\"");
  ASSERT_GT(line, 0);
  EXPECT_NE(m.find("functions.json:" + std::to_string(line) + ": functions[0] (review): run.claude.allowed_tools "
                   "names 'Bash(git diff:*)', which this Crew does not allow (allowed: Read, Grep, Glob, Write, Edit)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("agentworks crews allow api --claude-tools"), std::string::npos) << m;
  EXPECT_EQ(owner_http().get("/v1/crews/api").status, 404);
}

// R-F1: the same declaration registers when `allow` (HTTP) or --allow-claude-tools (CLI) covers it; a bare name
// covers its patterns.
TEST_F(FunctionsAllowance, ClaudeToolAllowedAtRegister_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_functions(dir, json::array({claude_decl("review", {"Read", "Bash(git diff:*)"})}));
  const HttpResponse r = register_with("api", dir, {{"claude_tools", {"Read", "Bash"}}});
  ASSERT_EQ(r.status, 201) << describe(r);
  const json crew = parse_json(r.body);
  EXPECT_EQ(crew.at("allow").at("claude_tools"), json::array({"Read", "Bash"})) << crew.dump();
  EXPECT_EQ(crew.at("allow").at("codex_sandbox"), "workspace-write") << crew.dump();
  EXPECT_EQ(crew.at("functions").at(0).at("runner"), "claude") << crew.dump();

  const fs::path other = make_crew_dir("web");
  write_functions(other, json::array({claude_decl("review", {"Read", "Bash(git diff:*)"}),
                                      codex_decl("fix", "read-only")}));
  const json web = cli_ok(owner(), {"crews", "register", "web", "--dir", other.string(), "--allow-claude-tools",
                                    "Read, Bash(git diff:*)", "--allow-codex-sandbox", "read-only"});
  EXPECT_EQ(web.at("allow").at("claude_tools"), json::array({"Read", "Bash(git diff:*)"})) << web.dump();
  EXPECT_EQ(web.at("allow").at("codex_sandbox"), "read-only") << web.dump();
  const CliResult human = owner().run({"crews", "show", "web"});
  EXPECT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find("agents may use: claude tools Read, Bash(git diff:*); codex sandbox read-only"),
            std::string::npos)
      << human.describe();
}

// R-F1: a reload asking for more is refused and the declaration in force stays (listed and callable); after
// `crews allow` widens the allowance the same reload is accepted.
TEST_F(FunctionsAllowance, ReloadRefusedKeepsPreviousUntilAllowed_R_F1) {
  start_server();
  const fs::path dir = hello_crew();
  write_functions(dir, json::array({function_decl("hello"), claude_decl("review", {"Grep", "Bash"})}));
  const HttpResponse r = reload_crew(owner_http(), "api");
  EXPECT_EQ(r.status, 400) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  EXPECT_NE(message_of(r).find("functions.json:" + std::to_string(line_of(dir, "\"Bash\"")) +
                               ": functions[1] (review): run.claude.allowed_tools names 'Bash'"),
            std::string::npos)
      << message_of(r);
  EXPECT_EQ(names_of(show("api")), std::vector<std::string>{"hello"});
  const json c = call_ok("api", "hello");
  EXPECT_EQ(wait_terminal(c.at("call_id").get<std::string>()).at("status"), "completed");

  const json allowed = cli_ok(owner(), {"crews", "allow", "api", "--claude-tools", "Read,Grep,Bash"});
  EXPECT_EQ(allowed.at("allow").at("claude_tools"), json::array({"Read", "Grep", "Bash"})) << allowed.dump();
  EXPECT_EQ(allowed.at("allow").at("codex_sandbox"), "workspace-write") << allowed.dump();  // left out: kept
  EXPECT_EQ(names_of(allowed), std::vector<std::string>{"hello"});  // allowing reads nothing by itself
  const json reloaded = cli_ok(owner(), {"crews", "reload", "api"});
  EXPECT_EQ(names_of(reloaded), (std::vector<std::string>{"hello", "review"})) << reloaded.dump();
}

// R-F1: an allowance narrower than the declaration in force is refused and nothing changes.
TEST_F(FunctionsAllowance, NarrowingBelowDeclarationRefused_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_functions(dir, json::array({claude_decl("review", {"Read", "Bash(git diff:*)"})}));
  ASSERT_EQ(register_with("api", dir, {{"claude_tools", {"Read", "Bash"}}}).status, 201);
  const HttpResponse r = allow("api", {{"claude_tools", {"Read"}}});
  EXPECT_EQ(r.status, 400) << describe(r);
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  EXPECT_NE(message_of(r).find("function 'review'"), std::string::npos) << message_of(r);
  EXPECT_NE(message_of(r).find("'Bash(git diff:*)'"), std::string::npos) << message_of(r);
  EXPECT_EQ(show("api").at("allow").at("claude_tools"), json::array({"Read", "Bash"}));

  const CliResult cli = owner().json({"crews", "allow", "api", "--claude-tools", "Read,Grep"});
  EXPECT_EQ(cli.exit_code, 2) << cli.describe();
  EXPECT_EQ(cli.error_code(), "invalid_declaration") << cli.describe();
  EXPECT_EQ(show("api").at("allow").at("claude_tools"), json::array({"Read", "Bash"}));
  // Widening, or keeping what the declaration needs, is accepted.
  const HttpResponse wider = allow("api", {{"claude_tools", {"Read", "Bash", "WebFetch"}}});
  EXPECT_EQ(wider.status, 200) << describe(wider);
}

// R-F1: a Codex sandbox wider than allowed is refused at its line; allowing it admits it; narrowing it back is
// refused.
TEST_F(FunctionsAllowance, CodexSandboxWiderThanAllowedRefused_R_F1) {
  start_server();
  const fs::path dir = hello_crew();
  write_functions(dir, json::array({function_decl("hello"), codex_decl("fix", "danger-full-access")}));
  const HttpResponse r = reload_crew(owner_http(), "api");
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  EXPECT_NE(message_of(r).find("functions.json:" + std::to_string(line_of(dir, "\"sandbox\"")) +
                               ": functions[1] (fix): run.codex.sandbox 'danger-full-access' is wider than this Crew "
                               "allows (workspace-write)"),
            std::string::npos)
      << message_of(r);
  EXPECT_NE(message_of(r).find("--codex-sandbox danger-full-access"), std::string::npos) << message_of(r);
  EXPECT_EQ(names_of(show("api")), std::vector<std::string>{"hello"});

  cli_ok(owner(), {"crews", "allow", "api", "--codex-sandbox", "danger-full-access"});
  EXPECT_EQ(names_of(cli_ok(owner(), {"crews", "reload", "api"})), (std::vector<std::string>{"hello", "fix"}));
  const HttpResponse narrower = allow("api", {{"codex_sandbox", "workspace-write"}});
  EXPECT_EQ(error_code_of(narrower.body), "invalid_declaration") << describe(narrower);
  EXPECT_EQ(show("api").at("allow").at("codex_sandbox"), "danger-full-access");
}

// R-F1: permission_mode bypassPermissions needs every tool ('*').
TEST_F(FunctionsAllowance, BypassPermissionsNeedsEveryTool_R_F1) {
  start_server();
  const fs::path dir = make_crew_dir("api");
  write_functions(dir, json::array({claude_decl("review", {"Read"}, "bypassPermissions")}));
  const HttpResponse r = register_with("api", dir, {{"claude_tools", {"Read", "Bash"}}});
  EXPECT_EQ(error_code_of(r.body), "invalid_declaration") << describe(r);
  EXPECT_NE(message_of(r).find("functions.json:" + std::to_string(line_of(dir, "\"permission_mode\"")) + ":"),
            std::string::npos)
      << message_of(r);
  EXPECT_NE(message_of(r).find("bypassPermissions"), std::string::npos) << message_of(r);
  EXPECT_EQ(register_with("api", dir, {{"claude_tools", {"*"}}}).status, 201);
}

// R-F1: bad allowance values are bad_request (HTTP) or usage (CLI) with the field named; nothing changes.
TEST_F(FunctionsAllowance, BadValuesRefused_R_F1) {
  start_server();
  const fs::path dir = hello_crew();
  const auto bad = [&](const json& body, const std::string& says) {
    const HttpResponse r = allow("api", body);
    EXPECT_EQ(r.status, 400) << describe(r);
    EXPECT_EQ(error_code_of(r.body), "bad_request") << describe(r);
    EXPECT_NE(message_of(r).find(says), std::string::npos) << body.dump() << ": " << message_of(r);
  };
  bad({{"claude_tools", "Read"}}, "claude_tools");
  bad({{"claude_tools", {"Read", ""}}}, "claude_tools");
  bad({{"claude_tools", {"Read,Bash"}}}, "no commas");
  bad({{"claude_tools", {1}}}, "claude_tools");
  bad({{"codex_sandbox", "full"}}, "codex_sandbox must be one of");
  bad({{"sandbox", "read-only"}}, "unknown field 'sandbox'");
  const HttpResponse at_register = register_with("web", make_crew_dir("web"), "all");
  EXPECT_EQ(error_code_of(at_register.body), "bad_request") << describe(at_register);
  EXPECT_EQ(show("api").at("allow").at("claude_tools"), json::array({"Read", "Grep", "Glob", "Write", "Edit"}));

  const CliResult none = owner().json({"crews", "allow", "api"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_EQ(none.error_code(), "usage") << none.describe();
  const CliResult empty_entry = owner().json({"crews", "allow", "api", "--claude-tools", "Read,,Bash"});
  EXPECT_EQ(empty_entry.error_code(), "usage") << empty_entry.describe();
  const CliResult sandbox = owner().json({"crews", "allow", "api", "--codex-sandbox", "full"});
  EXPECT_EQ(sandbox.exit_code, 2) << sandbox.describe();
  // An empty list allows no tools (a command Crew needs none).
  EXPECT_EQ(cli_ok(owner(), {"crews", "allow", "api", "--claude-tools", ""}).at("allow").at("claude_tools"),
            json::array());
  (void)dir;
}

}  // namespace
}  // namespace agentworks::testing
