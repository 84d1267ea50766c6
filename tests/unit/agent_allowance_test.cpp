// What a Crew's agent functions may use (R-F1): the coverage rule for Claude tools, the sandbox order for
// Codex, the checks on given values, and the refusal a declaration gets when it asks for more (with its line).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "agentworks/error.hpp"
#include "declaration/agent_allowance.hpp"
#include "declaration/declaration.hpp"

using agentworks::Error;
using agentworks::ErrorCode;
using namespace agentworks::functions;

namespace {

AgentAllowance tools(std::vector<std::string> names) {
  AgentAllowance a;
  a.claude_tools = std::move(names);
  return a;
}

FunctionDecl claude_fn(std::vector<std::string> allowed, std::string mode = "default") {
  FunctionDecl f;
  f.name = "review";
  f.runner = Runner::claude;
  f.agent.allowed_tools = std::move(allowed);
  f.agent.permission_mode = std::move(mode);
  return f;
}

FunctionDecl codex_fn(std::string sandbox) {
  FunctionDecl f;
  f.name = "fix";
  f.runner = Runner::codex;
  f.agent.sandbox = std::move(sandbox);
  return f;
}

}  // namespace

TEST(AgentAllowance, DefaultAllowsTheFileToolsAndAWorkspaceSandbox) {
  const AgentAllowance a;
  for (const char* t : {"Read", "Grep", "Glob", "Write", "Edit"}) EXPECT_TRUE(tool_allowed(a, t)) << t;
  EXPECT_FALSE(tool_allowed(a, "Bash"));
  EXPECT_FALSE(tool_allowed(a, "WebFetch"));
  EXPECT_EQ(a.codex_sandbox, "workspace-write");
}

TEST(AgentAllowance, ABareNameCoversItsPatternsAndOnlyThose) {
  const AgentAllowance a = tools({"Bash", "WebFetch(domain:example.com)"});
  EXPECT_TRUE(tool_allowed(a, "Bash"));
  EXPECT_TRUE(tool_allowed(a, "Bash(git diff:*)"));
  EXPECT_FALSE(tool_allowed(a, "BashOutput"));  // a longer name is another tool
  EXPECT_TRUE(tool_allowed(a, "WebFetch(domain:example.com)"));
  EXPECT_FALSE(tool_allowed(a, "WebFetch"));  // a pattern covers only itself
  EXPECT_FALSE(tool_allowed(a, "WebFetch(domain:other.com)"));
  EXPECT_TRUE(tool_allowed(tools({"*"}), "Bash(rm -rf:*)"));
  EXPECT_FALSE(tool_allowed(tools({}), "Read"));
}

TEST(AgentAllowance, ClaudeBreachesNameTheToolAndTheFix) {
  EXPECT_FALSE(allowance_breach(AgentAllowance{}, claude_fn({"Read", "Grep"}), "api"));
  const auto breach = allowance_breach(AgentAllowance{}, claude_fn({"Read", "Bash(git diff:*)"}), "api");
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->key, "Bash(git diff:*)");
  EXPECT_NE(breach->what.find("names 'Bash(git diff:*)'"), std::string::npos) << breach->what;
  EXPECT_NE(breach->what.find("allowed: Read, Grep, Glob, Write, Edit"), std::string::npos) << breach->what;
  EXPECT_NE(breach->fix.find("agentworks crews allow api --claude-tools 'Read,Grep,Glob,Write,Edit,Bash(git diff:*)'"),
            std::string::npos)
      << breach->fix;
}

TEST(AgentAllowance, BypassPermissionsNeedsEveryTool) {
  const auto breach = allowance_breach(tools({"Bash", "Read"}), claude_fn({}, "bypassPermissions"), "api");
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->key, "permission_mode");
  EXPECT_NE(breach->fix.find("--claude-tools '*'"), std::string::npos) << breach->fix;
  EXPECT_FALSE(allowance_breach(tools({"*"}), claude_fn({"Bash"}, "bypassPermissions"), "api"));
  EXPECT_FALSE(allowance_breach(tools({"Read"}), claude_fn({"Read"}, "acceptEdits"), "api"));
}

TEST(AgentAllowance, CodexSandboxesAreOrdered) {
  EXPECT_EQ(sandbox_rank("read-only"), 0);
  EXPECT_EQ(sandbox_rank("workspace-write"), 1);
  EXPECT_EQ(sandbox_rank("danger-full-access"), 2);
  EXPECT_FALSE(sandbox_rank("none"));
  const AgentAllowance a;  // workspace-write
  EXPECT_FALSE(allowance_breach(a, codex_fn("read-only"), "api"));
  EXPECT_FALSE(allowance_breach(a, codex_fn("workspace-write"), "api"));
  const auto breach = allowance_breach(a, codex_fn("danger-full-access"), "api");
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->key, "sandbox");
  EXPECT_NE(breach->fix.find("--codex-sandbox danger-full-access"), std::string::npos) << breach->fix;
  AgentAllowance narrow;
  narrow.codex_sandbox = "read-only";
  EXPECT_TRUE(allowance_breach(narrow, codex_fn("workspace-write"), "api"));
}

TEST(AgentAllowance, CommandFunctionsAskForNothing) {
  FunctionDecl f;
  f.runner = Runner::command;
  AgentAllowance none = tools({});
  none.codex_sandbox = "read-only";
  EXPECT_FALSE(allowance_breach(none, f, "api"));
}

TEST(AgentAllowance, DeclarationBreachNamesTheFirstFunction) {
  Declaration d;
  d.functions = {claude_fn({"Read"}), codex_fn("danger-full-access")};
  const auto breach = declaration_breach(AgentAllowance{}, d, "api");
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->first, "fix");
  Declaration read_only;
  read_only.functions = {claude_fn({"Read"})};
  EXPECT_FALSE(declaration_breach(tools({"Read"}), read_only, "api"));
  // The Crew's own agent (crew.json) is bounded by the same allowance (R-K2).
  read_only.agent = claude_fn({"Bash"});
  read_only.agent->name = "agent";
  const auto agent_breach = declaration_breach(tools({"Read"}), read_only, "api");
  ASSERT_TRUE(agent_breach);
  EXPECT_EQ(agent_breach->first, "agent");
}

TEST(AgentAllowance, GivenValuesAreChecked) {
  auto refused = [](const AgentAllowance& a) {
    try {
      check_allowance(a);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::bad_request);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refused(AgentAllowance{}), "");
  EXPECT_EQ(refused(tools({})), "");
  EXPECT_NE(refused(tools({""})).find("claude_tools"), std::string::npos);
  EXPECT_NE(refused(tools({"Read,Bash"})).find("no commas"), std::string::npos);
  AgentAllowance bad;
  bad.codex_sandbox = "full";
  EXPECT_NE(refused(bad).find("codex_sandbox must be one of"), std::string::npos);
}

TEST(AgentAllowance, StoredFormRoundTripsAndEmptyIsTheDefault) {
  AgentAllowance a = tools({"Bash(git diff:*)", "Read"});
  a.codex_sandbox = "read-only";
  const AgentAllowance back = allowance_from_json(allowance_to_json(a));
  EXPECT_EQ(back.claude_tools, a.claude_tools);
  EXPECT_EQ(back.codex_sandbox, "read-only");
  EXPECT_EQ(allowance_from_json("").claude_tools, AgentAllowance{}.claude_tools);
}

// The refusal at parse time names the file, the line of the tool and the function, like every declaration error.
TEST(AgentAllowance, DeclarationAskingForMoreIsRefusedAtItsLine) {
  const std::string text = R"({"functions": [
  {"name": "review",
   "inputs": {},
   "run": {"claude": {"prompt": "Review it",
                      "allowed_tools": ["Read",
                                        "Bash"]}}}
]})";
  const auto dir = std::filesystem::temp_directory_path();
  try {
    parse_declaration(text, dir, "functions.json", AgentAllowance{}, "api");
    FAIL() << "Bash was accepted under the default allowance";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_declaration);
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("functions.json:6: functions[0] (review): run.claude.allowed_tools names 'Bash'", 0), 0U) << m;
    EXPECT_NE(m.find("agentworks crews allow api --claude-tools"), std::string::npos) << m;
  }
  EXPECT_EQ(parse_declaration(text, dir, "functions.json", tools({"Read", "Bash"}), "api").functions.size(), 1U);
}
