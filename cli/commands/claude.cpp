// agentworks claude [ARGS...]: start Claude Code with the agentworks channel enabled, so messages arrive in
// the chat as channel notifications (R-C10). The plugin's MCP server is a development channel, so Claude Code
// asks the person to approve it at startup; we only add the flag. The process is replaced (execvp) so the
// terminal belongs to Claude. With --dry-run it prints the command line instead (with --json as an argv array).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agentworks/environment.hpp"
#include "agentworks/providers.hpp"
#include "agentworks/error.hpp"
#include "command.hpp"
#include "install/run_program.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace fs = std::filesystem;
namespace {

// The channel entry for the MCP server of the plugin `agentworks` from the marketplace `agentworks`
// (plugins/claude/.mcp.json, installed by `agentworks attach claude`). Claude Code 2.1.332 accepts
// `server:NAME` only for servers from MCP config files; a plugin's server is named `plugin:PLUGIN@MARKETPLACE`.
constexpr const char* kChannelFlag = "--dangerously-load-development-channels";
constexpr const char* kChannelEntry = "plugin:agentworks@agentworks";

// $AGENTWORKS_CLAUDE_BIN (tests, unusual installs), else `claude` on PATH.
std::optional<fs::path> claude_binary() {
  if (const char* given = env::get(env::Var::claude_bin); given != nullptr) {
    return fs::absolute(given);
  }
  return install::find_on_path(std::string(provider_info(Provider::claude).executable));
}

class Claude final : public Command {
 public:
  void define(Options& options) override {
    options.flag("--dry-run", dry_run_, "Print the command line instead of running it (with --json: an argv array)");
    // Everything from the first word that is not one of ours on is Claude's, unchanged and in order
    // (no `--` needed; the parser would consume it).
    options.pass_rest_through();
    options.footer("Runs: claude --dangerously-load-development-channels plugin:agentworks@agentworks ARGS...\n"
                   "Claude Code asks you to approve the development channel at startup.");
  }

  json run(const Context& ctx) override {
    const std::vector<std::string>& passthrough = ctx.rest;
    const auto bin = claude_binary();
    if (!bin) {
      throw Error(ErrorCode::not_found,
                  "claude (Claude Code) is not on PATH; install it (npm install -g @anthropic-ai/claude-code) "
                  "or set AGENTWORKS_CLAUDE_BIN to its path, then run `agentworks attach claude`");
    }
    std::vector<std::string> argv = {bin->string(), kChannelFlag, kChannelEntry};
    argv.insert(argv.end(), passthrough.begin(), passthrough.end());
    // The plugin's MCP server turns into a channel only under this variable (mcp_serve.cpp): a Claude session
    // started without the channel flag would drop pushed messages, so it must keep the Stop hook delivering.
    if (dry_run_) return json{{"argv", argv}, {"env", {{"AGENTWORKS_CLAUDE_CHANNEL", "1"}}}};
    ::setenv("AGENTWORKS_CLAUDE_CHANNEL", "1", 1);

    std::vector<char*> cargv;
    cargv.reserve(argv.size() + 1);
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    std::cout.flush();
    ::execvp(cargv.front(), cargv.data());
    const int err = errno;
    throw Error(err == ENOENT ? ErrorCode::not_found : ErrorCode::internal,
                "cannot start " + argv.front() + ": " + std::strerror(err) +
                    "; install Claude Code or set AGENTWORKS_CLAUDE_BIN to its path");
  }

  void print(const json& r) const override {
    std::string line;
    for (const auto& a : r.at("argv")) {
      if (!line.empty()) line += ' ';
      line += a.get<std::string>();
    }
    std::cout << line << "\n";
  }

 private:
  bool dry_run_ = false;
};

}  // namespace

std::unique_ptr<Command> make_claude() { return std::make_unique<Claude>(); }

}  // namespace agentworks::cli
