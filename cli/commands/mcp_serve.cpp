// agentworks mcp serve [--provider P] [--claude-channel] [--session-id ID]: the credential-less messaging MCP server that an agent
// CLI starts over stdio (plugins' .mcp.json, Codex's [mcp_servers]). It never reads the CLI login (R-C2): every
// tool goes to the bridge for this process's provider ancestor. stdout carries only MCP messages (docs/mcp.md).
// agentworks mcp serve --full: the person's opt-in full connection instead, speaking for their CLI login
// (one tool per action on functions, messages, agents and wakeups); it never talks to the bridge.
// agentworks mcp serve --call: inside a function's agent execution only, the server bound to that call (from its
// environment) whose one tool, request_input, asks the call's caller.
// agentworks mcp serve --conversation: inside a Crew agent's turn only (R-K2), the server bound to that
// conversation (from its environment) whose send_message and no_reply are the agent's only voice.
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <nlohmann/json.hpp>

#include "agentworks/environment.hpp"
#include "agentworks/providers.hpp"
#include "command.hpp"
#include "session.hpp"
#include "agentworks/error.hpp"
#include "functions/questions.hpp"
#include "mcp/call_server.hpp"
#include "mcp/caller_identity.hpp"
#include "mcp/conversation_server.hpp"
#include "mcp/full_server.hpp"
#include "mcp/server.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class McpServe final : public Command {
 public:
  void define(Options& options) override {
    options.option("--provider", options_.provider,
                   "The agent CLI that starts this server (claude, codex, cursor, pi); codex makes every call need "
                   "the host's thread id");
    options.option("--session-id", options_.session_id,
                   "With --provider pi: the Pi session this server serves (the agentworks Pi extension starts one "
                   "per session; it also carries Pi's native route)");
    options.flag("--claude-channel", options_.claude_channel,
                 "Also act as a Claude channel: push messages into the running Claude session");
    options.flag("--full", full_,
                 "The person's full connection with this CLI login: functions, messages, agents and wakeups tools "
                 "(docs/mcp.md)");
    options.flag("--call", call_,
                 "Inside a function execution: the server bound to its call, whose request_input tool asks the "
                 "caller (docs/mcp.md)");
    options.flag("--conversation", conversation_,
                 "Inside a Crew agent's turn: the server bound to its conversation, whose send_message and no_reply "
                 "are how the agent answers (docs/crews.md)");
    options.flag("--explicit", explicit_,
                 "With --call: the function talks explicitly, so the server also has send_message and no_reply "
                 "(its answer is what it sends)");
  }

  json run(const Context& ctx) override {
    if (conversation_) {
      if (call_ || explicit_ || full_ || !options_.provider.empty() || options_.claude_channel) {
        throw Error(ErrorCode::usage, "--conversation serves one Crew agent's turn: drop --call, --explicit, --full, "
                                      "--provider and --claude-channel");
      }
      // The conversation comes from the turn's environment only, checked before anything is served.
      const auto binding = mcp::conversation_binding();
      mcp::serve_conversation(std::cin, std::cout, binding);
      return json{{"stopped", true}};
    }
    if (call_) {
      if (full_ || !options_.provider.empty() || options_.claude_channel) {
        throw Error(ErrorCode::usage, "--call serves one function execution: drop --full, --provider and "
                                      "--claude-channel");
      }
      // The call comes from the execution's environment only, checked before anything is served.
      const auto binding = functions::execution_binding("`agentworks mcp serve --call`");
      mcp::serve_call(std::cin, std::cout, binding, explicit_);
      return json{{"stopped", true}};
    }
    if (explicit_) throw Error(ErrorCode::usage, "--explicit goes with --call (inside a function execution)");
    if (full_) {
      if (!options_.provider.empty() || options_.claude_channel) {
        throw Error(ErrorCode::usage, "--full speaks for your login, not an attached chat: drop --provider and "
                                      "--claude-channel");
      }
      // The login is read for every tool call, so `agentworks login` while the server runs applies at once.
      mcp::serve_full(std::cin, std::cout, [&ctx] { return require_login(ctx); });
      return json{{"stopped", true}};
    }
    mcp::current_caller(options_.provider);  // a bad --provider is a usage error before anything is served
    if (!options_.session_id.empty()) {
      if (!is_provider(options_.provider, Provider::pi)) {
        throw Error(ErrorCode::usage, "--session-id goes with --provider pi (Codex names its thread per call)");
      }
      mcp::checked_thread_id(options_.session_id, "--session-id");
    }
    // `agentworks claude` starts Claude with the channel enabled and sets this for the plugin's server; without
    // it a pushed message could land in a session that never shows it, so the Stop hook keeps delivering.
    const char* channel_env = env::get(env::Var::claude_channel);
    if (is_provider(options_.provider, Provider::claude) && channel_env != nullptr &&
        std::string_view(channel_env) == "1") {
      options_.claude_channel = true;
    }
    mcp::serve(std::cin, std::cout, options_);
    return json{{"stopped", true}};
  }

  void print(const json& /*result*/) const override {}  // stdout belongs to the protocol

 private:
  mcp::ServeOptions options_;
  bool full_ = false;
  bool call_ = false;
  bool explicit_ = false;
  bool conversation_ = false;
};

}  // namespace

std::unique_ptr<Command> make_mcp_serve() { return std::make_unique<McpServe>(); }

}  // namespace agentworks::cli
