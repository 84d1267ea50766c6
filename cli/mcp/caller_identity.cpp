#include "mcp/caller_identity.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;

CallerIdentity current_caller(const std::string& provider) {
  for (const char c : provider) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok || provider.size() > 32) {
      throw Error(ErrorCode::usage, "--provider must be a provider name such as claude, codex, cursor or pi");
    }
  }
  return CallerIdentity{process::provider_ancestor(), provider};
}

std::string checked_thread_id(const std::string& thread_id, const std::string& source) {
  if (!valid_client_id(thread_id)) {
    throw Error(ErrorCode::bad_request, "the chat id in " + source +
                                            " is not a valid session or thread id (1-200 printable ASCII characters)");
  }
  return thread_id;
}

void add_session_selector(json& request, const CallerIdentity& caller, const std::optional<std::string>& thread_id) {
  if (!caller.process) {
    throw Error(ErrorCode::not_found,
                "cannot find the agent CLI process this runs under, so no attached chat can be named; run it from "
                "the chat (Claude Code, Codex, Cursor or Pi) that was attached with `/agentworks attach`");
  }
  request["process"] = {{"pid", caller.process->pid}, {"start", caller.process->start}};
  if (thread_id) {
    // The host named its chat: a Pi session id from the Pi extension, else a Codex thread id.
    request["provider"] = provider_name(is_provider(caller.provider, Provider::pi) ? Provider::pi : Provider::codex);
    request["session_id"] = *thread_id;
    return;
  }
  if (is_provider(caller.provider, Provider::codex)) {
    throw Error(ErrorCode::bad_request,
                "this Codex call carries no thread id, so the chat it comes from is unknown; Codex sends it as "
                "_meta[\"x-codex-turn-metadata\"].thread_id (MCP) or CODEX_THREAD_ID (shell)");
  }
  if (!caller.provider.empty()) request["provider"] = caller.provider;
}

}  // namespace agentworks::cli::mcp
