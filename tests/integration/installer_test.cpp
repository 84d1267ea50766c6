// `agentworks attach PROVIDER` (the installer) and terminal `agentworks detach`, with the real agentworks CLI in a
// temp HOME and a temp project directory. R-H10: it installs into the project by default (global only when asked),
// only after the person's confirmation (--yes, or a terminal), merges with hooks that are already there, is
// idempotent, removes exactly its own entries, and attaches no chat. R-H8: terminal detach of one exact session,
// confirmed by the person, through the real bridge. Claude Code is driven through its own `claude plugin …`
// commands: here a fake `claude` that records its arguments (the real CLI is exercised by the end-to-end tests).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/wait.hpp"
#include "testing/binaries.hpp"
#include "testing/cli_runner.hpp"
#include "testing/temp_home.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

void write_text(const fs::path& path, const std::string& text, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

json read_json(const fs::path& path) { return json::parse(read_file(path)); }

// All hook commands in a hooks file, of both shapes (nested Claude/Codex groups and Cursor's flat entries).
std::vector<std::string> commands_of(const json& doc, const std::string& event) {
  std::vector<std::string> out;
  if (!doc.contains("hooks") || !doc["hooks"].contains(event)) return out;
  for (const auto& element : doc["hooks"][event]) {
    if (element.contains("command")) out.push_back(element["command"].get<std::string>());
    for (const auto& inner : element.value("hooks", json::array())) out.push_back(inner["command"].get<std::string>());
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Runs `agentworks ARGS` with a pseudo-terminal as stdin on which the person has typed `answer` (the real
// terminal path of the confirmation). Returns the exit code; stdout+stderr of the CLI go to `out`.
constexpr int kNoPty = -2;  // this machine has no pseudo-terminals (some containers)
int run_with_terminal(const std::vector<std::string>& args, const EnvOverrides& env, const std::string& answer,
                      const fs::path& out) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return kNoPty;
  const std::string slave_name = ::ptsname(master);
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (env.count(kv.substr(0, kv.find('='))) == 0) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) {
    if (v) envs.push_back(k + "=" + *v);
  }
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    const int slave = ::open(slave_name.c_str(), O_RDWR);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (slave < 0 || o < 0) ::_exit(120);
    ::dup2(slave, STDIN_FILENO);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(o, STDERR_FILENO);
    ::close(master);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(121);
  }
  [[maybe_unused]] auto w = ::write(master, answer.data(), answer.size());
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A temp HOME, a project directory and a stand-in agentworks-hook (AGENTWORKS_HOOK_BIN), so the tests never depend
// on the hook being built or on where it is installed.
class InstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = home_.path("project");
    fs::create_directories(project_);
    hook_ = home_.path("bin/agentworks-hook");
    write_text(hook_, "#!/bin/sh\nexit 0\n", true);
    codex_home_ = home_.path("codex-home");
    fs::create_directories(codex_home_);
  }

  EnvOverrides env(const EnvOverrides& extra = {}) const {
    return merge_env(merge_env(home_.env(), {{"AGENTWORKS_HOOK_BIN", hook_.string()},
                                             {"CODEX_HOME", codex_home_.string()},
                                             {"AGENTWORKS_CLAUDE_BIN", std::nullopt}}),
                     extra);
  }
  CliResult attach(const std::vector<std::string>& args, const EnvOverrides& extra = {}) const {
    std::vector<std::string> all = {"attach"};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--project", project_.string(), "--json"});
    return run_cli(all, env(extra));
  }
  std::string cmd(const std::string& provider, const std::string& event) const {
    return hook_.string() + " " + provider + " " + event;
  }

  TempHome home_;
  fs::path project_;
  fs::path hook_;
  fs::path codex_home_;
};

// R-H10: Codex, project scope: merged into <project>/.codex/hooks.json next to a hook someone else put there,
// the same result on a second run, and uninstall leaves the other hook exactly as it was.
TEST_F(InstallerTest, CodexProjectInstallMergesIsIdempotentAndUninstallKeepsForeignHooks_RH10) {
  const fs::path file = project_ / ".codex" / "hooks.json";
  const json foreign = {{"hooks",
                         {{"Stop", json::array({{{"hooks", json::array({{{"type", "command"},
                                                                         {"command", "/opt/lint/stop-check"}}})}}})},
                          {"PreToolUse", json::array({{{"matcher", "Bash"},
                                                       {"hooks", json::array({{{"type", "command"},
                                                                               {"command", "/opt/guard"}}})}}})}}}};
  write_text(file, foreign.dump(2));

  const CliResult first = attach({"codex", "--yes"});
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const json r = first.json();
  EXPECT_EQ(r["provider"], "codex");
  EXPECT_EQ(r["action"], "installed");
  EXPECT_EQ(r["scope"], "project");
  EXPECT_EQ(r["attached"], false);  // R-H10: no chat is attached by installing
  EXPECT_EQ(r["hooks_file"], file.string());
  EXPECT_EQ(r["hook"], hook_.string());
  EXPECT_NE(r["next_steps"].dump().find("/hooks"), std::string::npos) << r.dump();  // trust stays with the person
  EXPECT_NE(r["next_steps"].dump().find("agentworks attach NAME"), std::string::npos) << r.dump();

  const json merged = read_json(file);
  EXPECT_TRUE(has(commands_of(merged, "Stop"), "/opt/lint/stop-check")) << merged.dump();
  EXPECT_TRUE(has(commands_of(merged, "PreToolUse"), "/opt/guard")) << merged.dump();
  EXPECT_EQ(merged["hooks"]["PreToolUse"][0]["matcher"], "Bash");
  for (const std::string event : {"Stop", "UserPromptSubmit", "SessionStart", "SessionEnd"}) {
    EXPECT_TRUE(has(commands_of(merged, event), cmd("codex", event))) << event << ": " << merged.dump();
  }
  // Codex caps SessionEnd hooks at a few seconds; the others get 30 s.
  EXPECT_LE(merged["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"].get<int>(), 3);
  EXPECT_EQ(merged["hooks"]["Stop"].back()["hooks"][0]["timeout"], 30);
  // Trust is never written by the installer.
  EXPECT_FALSE(fs::exists(codex_home_ / "config.toml"));
  // The Codex plugin is materialized for `codex plugin add`, with the hook path filled in.
  const fs::path plugin_hooks =
      home_.data_home() / "agentworks" / "codex-marketplace" / "codex" / "hooks" / "hooks.json";
  EXPECT_TRUE(has(commands_of(read_json(plugin_hooks), "Stop"), cmd("codex", "Stop")));
  EXPECT_EQ(read_json(plugin_hooks.parent_path().parent_path() / ".mcp.json")["mcpServers"]["agentworks"]["args"],
            json::array({"mcp", "serve", "--provider", "codex"}));
  EXPECT_TRUE(fs::exists(home_.data_home() / "agentworks" / "codex-marketplace" / ".agents" / "plugins" /
                         "marketplace.json"));

  const std::string after_first = read_file(file);
  const CliResult second = attach({"codex", "--yes"});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_EQ(second.json()["files"][0]["changed"], false);
  EXPECT_EQ(read_file(file), after_first);  // idempotent: byte for byte
  EXPECT_EQ(commands_of(read_json(file), "Stop").size(), 2u);

  const CliResult removed = attach({"codex", "--uninstall", "--yes"});
  ASSERT_EQ(removed.exit_code, 0) << removed.describe();
  EXPECT_EQ(removed.json()["action"], "uninstalled");
  const json left = read_json(file);
  EXPECT_EQ(left, foreign) << left.dump();

  const CliResult again = attach({"--uninstall", "codex", "--yes"});  // nothing of ours left: a no-op
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.json()["files"][0]["changed"], false);
  EXPECT_EQ(read_json(file), foreign);
}

// R-H10: --global is the person's explicit choice: $CODEX_HOME/hooks.json, and the project is not touched.
TEST_F(InstallerTest, CodexGlobalWritesCodexHomeOnly_RH10) {
  const CliResult r = attach({"codex", "--global", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.json()["scope"], "global");
  EXPECT_TRUE(has(commands_of(read_json(codex_home_ / "hooks.json"), "Stop"), cmd("codex", "Stop")));
  EXPECT_FALSE(fs::exists(project_ / ".codex"));

  const CliResult u = attach({"codex", "--global", "--uninstall", "--yes"});
  ASSERT_EQ(u.exit_code, 0) << u.describe();
  EXPECT_EQ(u.json()["files"][0]["removed_file"], true);  // only ours was in it
  EXPECT_FALSE(fs::exists(codex_home_ / "hooks.json"));
}

// R-H10: Cursor, project scope: stop (with a loop limit) and beforeSubmitPrompt merged into .cursor/hooks.json.
TEST_F(InstallerTest, CursorProjectInstallMergesAndUninstallKeepsForeignHooks_RH10) {
  const fs::path file = project_ / ".cursor" / "hooks.json";
  const json foreign = {{"version", 1},
                        {"hooks", {{"beforeSubmitPrompt", json::array({{{"command", "./audit.sh"}}})},
                                   {"afterFileEdit", json::array({{{"command", "./format.sh"}}})}}}};
  write_text(file, foreign.dump());

  const CliResult r = attach({"cursor", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.json()["attached"], false);
  const json merged = read_json(file);
  EXPECT_EQ(merged["version"], 1);
  EXPECT_TRUE(has(commands_of(merged, "beforeSubmitPrompt"), "./audit.sh"));
  EXPECT_TRUE(has(commands_of(merged, "beforeSubmitPrompt"), cmd("cursor", "beforeSubmitPrompt")));
  EXPECT_TRUE(has(commands_of(merged, "afterFileEdit"), "./format.sh"));
  ASSERT_EQ(merged["hooks"]["stop"].size(), 1u);
  EXPECT_EQ(merged["hooks"]["stop"][0]["command"], cmd("cursor", "stop"));
  EXPECT_GT(merged["hooks"]["stop"][0]["loop_limit"].get<int>(), 0);

  const std::string once = read_file(file);
  ASSERT_EQ(attach({"cursor", "--yes"}).exit_code, 0);
  EXPECT_EQ(read_file(file), once);

  const CliResult u = attach({"cursor", "--uninstall", "--yes"});
  ASSERT_EQ(u.exit_code, 0) << u.describe();
  EXPECT_EQ(read_json(file), foreign);
}

// R-H10 (Pi): the extension file goes to <project>/.pi/extensions/agentworks.ts with the hook's and the CLI's
// absolute paths filled in (no placeholder left), the same bytes on a second run; --global writes it to
// $PI_CODING_AGENT_DIR/extensions; uninstall removes exactly that file; a foreign file of that name is refused
// (conflict) and left alone, and --allow-tools is refused for Pi.
TEST_F(InstallerTest, PiExtensionInstallsGlobalAndUninstallsAndLeavesForeignFiles_RH10) {
  const fs::path file = project_ / ".pi" / "extensions" / "agentworks.ts";
  const CliResult r = attach({"pi", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.json()["attached"], false);
  EXPECT_EQ(r.json()["extension_file"], file.string());
  const std::string text = read_file(file);
  EXPECT_EQ(text.rfind("// agentworks extension for Pi", 0), 0u) << text.substr(0, 80);
  EXPECT_NE(text.find("const AGENTWORKS_HOOK = \"" + hook_.string() + "\";"), std::string::npos);
  EXPECT_EQ(text.find("@AGENTWORKS_"), std::string::npos);
  ASSERT_EQ(attach({"pi", "--yes"}).exit_code, 0);
  EXPECT_EQ(read_file(file), text);

  const fs::path agent_dir = home_.path("pi-agent");
  const CliResult g = run_cli({"attach", "pi", "--global", "--yes", "--json"}, env({{"PI_CODING_AGENT_DIR", agent_dir.string()}}));
  ASSERT_EQ(g.exit_code, 0) << g.describe();
  EXPECT_EQ(read_file(agent_dir / "extensions" / "agentworks.ts"), text);

  const CliResult tools = attach({"pi", "--yes", "--allow-tools"});
  EXPECT_EQ(tools.exit_code, 2) << tools.describe();
  EXPECT_EQ(tools.error_code(), "usage");

  const CliResult u = attach({"pi", "--uninstall", "--yes"});
  ASSERT_EQ(u.exit_code, 0) << u.describe();
  EXPECT_FALSE(fs::exists(file));
  EXPECT_TRUE(fs::exists(agent_dir / "extensions" / "agentworks.ts"));

  write_text(file, "export default function () {}\n");
  const CliResult foreign = attach({"pi", "--yes"});
  EXPECT_EQ(foreign.exit_code, 5) << foreign.describe();
  EXPECT_EQ(foreign.error_code(), "conflict");
  EXPECT_EQ(read_file(file), "export default function () {}\n");
  EXPECT_EQ(attach({"pi", "--uninstall", "--yes"}).error_code(), "conflict");
  EXPECT_TRUE(fs::exists(file));
}

// R-H10: without a terminal and without --yes the installer refuses (usage, exit 2), says to pass --yes, and
// writes nothing at all.
TEST_F(InstallerTest, NoTerminalWithoutYesIsRefusedAndWritesNothing_RH10) {
  for (const std::string provider : {"codex", "cursor", "claude"}) {
    const CliResult r = attach({provider});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.error_code(), "usage") << r.describe();
    EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("--yes"), std::string::npos) << r.describe();
  }
  const CliResult u = attach({"codex", "--uninstall"});
  EXPECT_EQ(u.exit_code, 2) << u.describe();
  EXPECT_TRUE(fs::is_empty(project_));
  EXPECT_FALSE(fs::exists(home_.data_home() / "agentworks"));
  EXPECT_TRUE(fs::is_empty(codex_home_));

  // Human output: the error goes to stderr.
  const CliResult plain = run_cli({"attach", "cursor", "--project", project_.string()}, env());
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("--yes"), std::string::npos) << plain.describe();
  EXPECT_TRUE(fs::is_empty(project_));
}

// R-H10: the confirmation is asked on the terminal: "n" changes nothing, "y" installs.
TEST_F(InstallerTest, TerminalAnswerDecides_RH10) {
  const fs::path out = home_.path("tty-out");
  const std::vector<std::string> args = {"attach", "cursor", "--project", project_.string()};
  const int declined = run_with_terminal(args, env(), "n\n", out);
  if (declined == kNoPty) GTEST_SKIP() << "no pseudo-terminal available";
  EXPECT_EQ(declined, 2);
  EXPECT_NE(read_file(out).find("Install the agentworks hooks for Cursor into"), std::string::npos) << read_file(out);
  EXPECT_NE(read_file(out).find("nothing was changed"), std::string::npos) << read_file(out);
  EXPECT_TRUE(fs::is_empty(project_));

  EXPECT_EQ(run_with_terminal(args, env(), "y\n", out), 0) << read_file(out);
  EXPECT_NE(read_file(out).find("No chat was attached"), std::string::npos) << read_file(out);
  EXPECT_TRUE(has(commands_of(read_json(project_ / ".cursor" / "hooks.json"), "stop"), cmd("cursor", "stop")));
}

TEST_F(InstallerTest, BadOrMissingProviderIsUsageError_RH10) {
  const CliResult bad = attach({"vim", "--yes"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_EQ(bad.error_code(), "usage");
  EXPECT_NE(bad.json()["error"]["message"].get<std::string>().find("claude, codex, cursor or pi"), std::string::npos);
  const CliResult none = attach({"--yes"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_EQ(none.error_code(), "usage");
  const CliResult no_dir =
      run_cli({"attach", "codex", "--yes", "--json", "--project", home_.path("missing").string()}, env());
  EXPECT_EQ(no_dir.exit_code, 2) << no_dir.describe();
  EXPECT_TRUE(fs::is_empty(project_));
}

// A hooks file that is not JSON is the person's to fix: refused (bad_request, exit 2) and left unchanged.
TEST_F(InstallerTest, MalformedHooksFileIsLeftUnchanged_RH10) {
  const fs::path file = project_ / ".cursor" / "hooks.json";
  write_text(file, "{ not json");
  const CliResult r = attach({"cursor", "--yes"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(r.error_code(), "bad_request");
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find(file.string()), std::string::npos);
  EXPECT_EQ(read_file(file), "{ not json");
}

// The hook command is the absolute hook path, shell-quoted when it needs to be (the provider runs it in a shell).
TEST_F(InstallerTest, HookPathWithSpaceIsQuoted_RH10) {
  const fs::path spaced = home_.path("my tools/agentworks-hook");
  write_text(spaced, "#!/bin/sh\nexit 0\n", true);
  const CliResult r = attach({"cursor", "--yes"}, {{"AGENTWORKS_HOOK_BIN", spaced.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const json merged = read_json(project_ / ".cursor" / "hooks.json");
  EXPECT_EQ(merged["hooks"]["stop"][0]["command"], "'" + spaced.string() + "' cursor stop");

  const CliResult missing = attach({"cursor", "--yes"}, {{"AGENTWORKS_HOOK_BIN", home_.path("nope").string()}});
  EXPECT_EQ(missing.exit_code, 4) << missing.describe();
  EXPECT_EQ(missing.error_code(), "not_found");
}

// R-H10: Claude Code is installed through its own commands (a fake `claude` on PATH records them): the local
// marketplace is materialized with the hook path filled in, then `plugin marketplace add` at user scope (its
// absolute path into home never lands in the project's committed .claude/settings.json) and `plugin install` at
// project scope run in the project; --global installs at user scope; --uninstall runs the reverse.
TEST_F(InstallerTest, ClaudeRunsClaudePluginCommandsInTheProject_RH10) {
  const fs::path bin = home_.path("fakebin");
  const fs::path log = home_.path("claude-argv.log");
  write_text(bin / "claude",
             "#!/bin/sh\nprintf '%s|' \"$(pwd)\" \"$@\" >> '" + log.string() + "'\necho >> '" + log.string() +
                 "'\n[ -n \"$FAKE_CLAUDE_FAIL\" ] && { echo boom; exit 3; }\nexit 0\n",
             true);
  const std::string path_env = bin.string() + ":/usr/bin:/bin";
  const fs::path mkt = home_.data_home() / "agentworks" / "claude-marketplace";

  const CliResult r = attach({"claude", "--yes"}, {{"PATH", path_env}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const json j = r.json();
  EXPECT_EQ(j["attached"], false);
  EXPECT_EQ(j["plugin"], "agentworks@agentworks");
  EXPECT_EQ(j["plugin_marketplace"], mkt.string());
  ASSERT_EQ(j["commands"].size(), 2u) << j.dump();
  const std::string project = fs::canonical(project_).string();
  EXPECT_EQ(read_file(log), project + "|plugin|marketplace|add|" + mkt.string() + "|--scope|user|\n" + project +
                                "|plugin|install|agentworks@agentworks|--scope|project|\n");

  // The materialized marketplace: plugin source, hooks with the absolute hook path, the bare /agentworks skill.
  const json market = read_json(mkt / ".claude-plugin" / "marketplace.json");
  EXPECT_EQ(market["name"], "agentworks");
  EXPECT_EQ(market["plugins"][0]["name"], "agentworks");
  EXPECT_EQ(market["plugins"][0]["source"], "./claude");
  EXPECT_EQ(read_json(mkt / "claude" / ".claude-plugin" / "plugin.json")["name"], "agentworks");
  const json hooks = read_json(mkt / "claude" / "hooks" / "hooks.json");
  for (const std::string event : {"Stop", "UserPromptSubmit", "SessionStart", "SessionEnd"}) {
    EXPECT_TRUE(has(commands_of(hooks, event), cmd("claude", event))) << event << ": " << hooks.dump();
  }
  EXPECT_EQ(read_file(mkt / "claude" / "hooks" / "hooks.json").find("@AGENTWORKS_HOOK@"), std::string::npos);
  // The credential-less messaging MCP child, started by the absolute path of this very agentworks.
  const json mcp = read_json(mkt / "claude" / ".mcp.json");
  EXPECT_EQ(mcp["mcpServers"]["agentworks"]["command"], fs::canonical(cli_binary()).string());
  EXPECT_EQ(mcp["mcpServers"]["agentworks"]["args"], json::array({"mcp", "serve", "--provider", "claude"}));
  const std::string skill = read_file(mkt / "claude" / "skills" / "agentworks" / "SKILL.md");
  EXPECT_NE(skill.find("name: agentworks"), std::string::npos);
  EXPECT_NE(skill.find("disable-model-invocation: true"), std::string::npos);

  fs::remove(log);
  const CliResult g = attach({"claude", "--global", "--yes"}, {{"PATH", path_env}});
  ASSERT_EQ(g.exit_code, 0) << g.describe();
  EXPECT_NE(read_file(log).find("|plugin|install|agentworks@agentworks|--scope|user|"), std::string::npos);

  fs::remove(log);
  const CliResult u = attach({"claude", "--uninstall", "--yes"}, {{"PATH", path_env}});
  ASSERT_EQ(u.exit_code, 0) << u.describe();
  EXPECT_EQ(read_file(log), project + "|plugin|uninstall|agentworks@agentworks|--scope|project|\n" + project +
                                "|plugin|marketplace|remove|agentworks|--scope|project|\n");

  // A failing `claude` stops the install with its output (exit 1), not silently.
  const CliResult failed = attach({"claude", "--yes"}, {{"PATH", path_env}, {"FAKE_CLAUDE_FAIL", "1"}});
  EXPECT_EQ(failed.exit_code, 1) << failed.describe();
  EXPECT_NE(failed.json()["error"]["message"].get<std::string>().find("boom"), std::string::npos);
}

// Without `claude` on PATH there is no silent fallback: not_found (exit 4) with the two commands to run by hand,
// and Claude Code's settings are not written.
TEST_F(InstallerTest, ClaudeWithoutClaudeOnPathPrintsTheCommands_RH10) {
  const fs::path empty_bin = home_.path("emptybin");
  fs::create_directories(empty_bin);
  const CliResult r = attach({"claude", "--yes"}, {{"PATH", empty_bin.string()}});
  EXPECT_EQ(r.exit_code, 4) << r.describe();
  EXPECT_EQ(r.error_code(), "not_found");
  const std::string message = r.json()["error"]["message"].get<std::string>();
  EXPECT_NE(message.find("claude plugin marketplace add"), std::string::npos) << message;
  EXPECT_NE(message.find("claude plugin install agentworks@agentworks --scope project"), std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(project_ / ".claude"));
  // The marketplace those commands name is ready.
  EXPECT_TRUE(fs::exists(home_.data_home() / "agentworks" / "claude-marketplace" / ".claude-plugin" /
                         "marketplace.json"));
}

// R-H8: terminal detach with a real bridge and server: refused without the person's confirmation (nothing
// changes), then with --yes it detaches exactly that session. It never attaches anything.
class TerminalDetachTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    start_bridge();
  }
};

TEST_F(TerminalDetachTest, DetachNeedsConfirmationThenDetachesThatSessionOnly_RH8) {
  for (const std::string session : {"sess-keep", "sess-go"}) {
    const auto a = bridge_call(home_, {{"op", "attach"},
                                       {"provider", "claude"},
                                       {"session_id", session},
                                       {"agent_name", session == "sess-go" ? "goer" : "keeper"},
                                       {"purpose", "Detach test"}});
    ASSERT_TRUE(a && a->value("ok", false)) << (a ? a->dump() : "no answer");
  }

  const CliResult refused = owner().json({"detach", "--provider", "claude", "--session", "sess-go"});
  EXPECT_EQ(refused.exit_code, 2) << refused.describe();
  EXPECT_EQ(refused.error_code(), "usage");
  EXPECT_NE(refused.out.find("--yes"), std::string::npos) << refused.describe();
  EXPECT_EQ(lookup("claude", "sess-go")["attached"], true);  // nothing changed

  const CliResult done = owner().json({"detach", "--provider", "claude", "--session", "sess-go", "--yes"});
  ASSERT_EQ(done.exit_code, 0) << done.describe();
  const json d = done.json();
  EXPECT_EQ(d["detached"], true);
  EXPECT_EQ(d["agent_name"], "goer");
  EXPECT_EQ(d["provider"], "claude");
  EXPECT_EQ(d["session_id"], "sess-go");
  EXPECT_EQ(lookup("claude", "sess-go")["attached"], false);
  EXPECT_EQ(lookup("claude", "sess-keep")["attached"], true);  // the exact session only

  const CliResult unknown = owner().json({"detach", "--provider", "claude", "--session", "sess-go", "--yes"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.describe();
  EXPECT_EQ(unknown.error_code(), "not_found");

  const CliResult missing_session = owner().json({"detach", "--provider", "claude", "--yes"});
  EXPECT_EQ(missing_session.exit_code, 2) << missing_session.describe();
}

// R-H10: `attach codex` puts the messaging MCP server into the project's .codex/config.toml (the file
// Codex 0.171.0 reads in a trusted project) as one marked block after what is there, the same file on a second
// run, and uninstall leaves the rest of the file byte for byte.
TEST_F(InstallerTest, CodexInstallAddsMcpServerBlockIdempotentlyAndUninstallRestoresTheFile_RH10) {
  const fs::path config = project_ / ".codex" / "config.toml";
  const std::string theirs = "# mine\nmodel = \"o3\"\n[mcp_servers.other]\ncommand = \"other\"\n";
  write_text(config, theirs);

  const CliResult first = attach({"codex", "--yes"});
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  EXPECT_EQ(first.json()["mcp_config"], config.string());
  EXPECT_EQ(first.json()["tools_allowed"], false);
  const std::string installed = read_file(config);
  EXPECT_EQ(installed.rfind(theirs, 0), 0u) << installed;
  EXPECT_NE(installed.find("[mcp_servers.agentworks]\ncommand = \"" + fs::canonical(cli_binary()).string() +
                           "\"\nargs = [\"mcp\", \"serve\", \"--provider\", \"codex\"]\n"),
            std::string::npos)
      << installed;
  EXPECT_EQ(installed.find("approval_mode"), std::string::npos) << installed;
  EXPECT_FALSE(fs::exists(codex_home_ / "config.toml"));
  // The Next: steps say where the tools come from and how approvals work.
  const std::string steps = first.json()["next_steps"].dump();
  EXPECT_NE(steps.find("codex mcp list"), std::string::npos) << steps;
  EXPECT_NE(steps.find("--allow-tools"), std::string::npos) << steps;

  const CliResult second = attach({"codex", "--yes"});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_EQ(read_file(config), installed);

  const CliResult removed = attach({"codex", "--uninstall", "--yes"});
  ASSERT_EQ(removed.exit_code, 0) << removed.describe();
  EXPECT_EQ(read_file(config), theirs);

  // A config.toml that held only our block is removed with it.
  fs::remove(config);
  ASSERT_EQ(attach({"codex", "--yes"}).exit_code, 0);
  ASSERT_EQ(attach({"codex", "--uninstall", "--yes"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(config));
}

// R-H10: --allow-tools adds approval_mode = "approve" (the one Codex 0.171.0 mode that skips the
// question, also under approval_policy = "never") for exactly the plugin's messaging and function tools, globally in
// $CODEX_HOME/config.toml; a reinstall without it takes them out again; uninstall removes the block.
TEST_F(InstallerTest, CodexAllowToolsApprovesExactlyTheFiveMessagingTools_RH10) {
  const fs::path config = codex_home_ / "config.toml";
  write_text(config, "model = \"o3\"\n");
  const CliResult r = attach({"codex", "--global", "--allow-tools", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.json()["tools_allowed"], true);
  const std::string text = read_file(config);
  std::size_t approvals = 0;
  for (auto pos = text.find("approval_mode = \"approve\""); pos != std::string::npos;
       pos = text.find("approval_mode = \"approve\"", pos + 1)) {
    ++approvals;
  }
  EXPECT_EQ(approvals, 14u) << text;
  for (const std::string tool :
       {"agent_message_ack", "agent_message_no_reply", "agent_message_reply", "agent_message_send", "agent_message_read", "agent_message_peers",
        "list_functions", "call_function", "get_function_call", "reply_function_call", "cancel_function_call",
        "schedule_message_wakeup", "cancel_message_wakeup", "list_message_wakeups"}) {
    EXPECT_NE(text.find("[mcp_servers.agentworks.tools." + tool + "]\napproval_mode = \"approve\"\n"), std::string::npos)
        << tool << "\n" << text;
  }
  EXPECT_FALSE(fs::exists(project_ / ".codex"));

  ASSERT_EQ(attach({"codex", "--global", "--yes"}).exit_code, 0);
  EXPECT_EQ(read_file(config).find("approval_mode"), std::string::npos) << read_file(config);
  ASSERT_EQ(attach({"codex", "--global", "--uninstall", "--yes"}).exit_code, 0);
  EXPECT_EQ(read_file(config), "model = \"o3\"\n");

  // Cursor gets no MCP tools from agentworks: the flag is a usage error that changes nothing.
  const CliResult cursor = attach({"cursor", "--allow-tools", "--yes"});
  EXPECT_EQ(cursor.exit_code, 2) << cursor.describe();
  EXPECT_FALSE(fs::exists(project_ / ".cursor"));
}

// R-H10: a config.toml that defines [mcp_servers.agentworks] itself (the hand edit the docs used to ask for) is
// refused with `conflict` before anything is written: two such tables would be invalid TOML for Codex.
TEST_F(InstallerTest, CodexConfigWithItsOwnAgentworksServerIsRefusedAndUnchanged_RH10) {
  const fs::path config = project_ / ".codex" / "config.toml";
  const std::string theirs = "[mcp_servers.agentworks]\ncommand = \"/opt/agentworks\"\n";
  write_text(config, theirs);
  const CliResult r = attach({"codex", "--yes"});
  EXPECT_EQ(r.exit_code, 5) << r.describe();
  EXPECT_EQ(r.error_code(), "conflict") << r.describe();
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("remove that table"), std::string::npos);
  EXPECT_EQ(read_file(config), theirs);
  EXPECT_FALSE(fs::exists(project_ / ".codex" / "hooks.json"));
}

// R-H10: `attach claude --allow-tools` adds the plugin's tool names to permissions.allow of the
// project's .claude/settings.json next to the person's own rules, once; uninstall removes exactly those five.
TEST_F(InstallerTest, ClaudeAllowToolsAddsExactlyTheFiveRulesAndUninstallRemovesThem_RH10) {
  const fs::path bin = home_.path("fakebin");
  write_text(bin / "claude", "#!/bin/sh\nexit 0\n", true);
  const EnvOverrides path_env = {{"PATH", bin.string() + ":/usr/bin:/bin"}};
  const fs::path settings = project_ / ".claude" / "settings.json";
  write_text(settings, "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}, \"model\": \"opus\"}\n");

  ASSERT_EQ(attach({"claude", "--allow-tools", "--yes"}, path_env).exit_code, 0);
  ASSERT_EQ(attach({"claude", "--allow-tools", "--yes"}, path_env).exit_code, 0);
  const json allowed = read_json(settings);
  EXPECT_EQ(allowed["permissions"]["allow"],
            json::array({"Bash(ls)", "mcp__plugin_agentworks_agentworks__agent_message_ack",
                         "mcp__plugin_agentworks_agentworks__agent_message_no_reply",
                         "mcp__plugin_agentworks_agentworks__agent_message_reply",
                         "mcp__plugin_agentworks_agentworks__agent_message_send",
                         "mcp__plugin_agentworks_agentworks__agent_message_read",
                         "mcp__plugin_agentworks_agentworks__agent_message_peers",
                         "mcp__plugin_agentworks_agentworks__list_functions",
                         "mcp__plugin_agentworks_agentworks__call_function",
                         "mcp__plugin_agentworks_agentworks__get_function_call",
                         "mcp__plugin_agentworks_agentworks__reply_function_call",
                         "mcp__plugin_agentworks_agentworks__cancel_function_call",
                         "mcp__plugin_agentworks_agentworks__schedule_message_wakeup",
                         "mcp__plugin_agentworks_agentworks__cancel_message_wakeup",
                         "mcp__plugin_agentworks_agentworks__list_message_wakeups"}))
      << allowed.dump();
  EXPECT_EQ(allowed["model"], "opus");

  ASSERT_EQ(attach({"claude", "--uninstall", "--yes"}, path_env).exit_code, 0);
  const json after = read_json(settings);
  EXPECT_EQ(after["permissions"]["allow"], json::array({"Bash(ls)"})) << after.dump();
  EXPECT_EQ(after["model"], "opus");
}

// R-H8: with no bridge running, terminal detach is `unreachable` (exit 6) with the hint to start it.
TEST(TerminalDetach, BridgeNotRunningIsUnreachable_RH8) {
  TempHome home;
  const CliResult r = run_cli({"detach", "--provider", "codex", "--session", "t-1", "--yes"}, home.env());
  EXPECT_EQ(r.exit_code, 6) << r.describe();
  EXPECT_NE(r.err.find("agentworks daemon start"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace agentworks::testing
