#include "identity/session_resolver.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"
#include "request/request_fields.hpp"
#include "services/session_lookup.hpp"
#include "state/session_registry.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

const char* const kAttachHint =
    "ask the person to attach this chat with `/agentworks attach` (in Codex type `agentworks attach`)";

Error not_attached(const std::string& what) { return Error(ErrorCode::not_found, what + "; " + kAttachHint); }

bool valid_provider(const std::string& p) {
  if (p.empty() || p.size() > 32) return false;
  for (const char c : p) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool stored_for(const AttachmentRow& row, const process::ProcessKey& key) {
  return row.provider_pid > 0 && row.provider_pid == key.pid && row.provider_start == key.start;
}

// The session belongs to this process: a hook of the process reported it, or the process attached/resumed it.
bool registered_for(SessionLookup& bridge, const AttachmentRow& row, const process::ProcessKey& key) {
  if (stored_for(row, key)) return true;
  if (const auto s = bridge.registry().session_for(key)) {
    if (s->provider == row.provider && s->session_id == row.session_id) return true;
  }
  const auto p = bridge.registry().process_for(SessionKey{row.provider, row.session_id});
  return p && *p == key;
}

// After a bridge restart the in-memory registrations are gone until the next hook event; the attachment that
// this exact process attached or resumed still names the session when it is the only one.
std::optional<SessionKey> stored_session(SessionLookup& bridge, const process::ProcessKey& key) {
  std::optional<SessionKey> found;
  for (const auto& row : bridge.journal().attachments()) {
    if (!stored_for(row, key)) continue;
    if (found) return std::nullopt;  // ambiguous: never pick one
    found = SessionKey{row.provider, row.session_id};
  }
  return found;
}

}  // namespace

AttachmentRow resolve_attachment(SessionLookup& bridge, const json& req) {
  const auto key = optional_process(req);
  if (!key) {
    const auto session = session_key(req);
    const auto row = bridge.journal().find_attachment(session.provider, session.session_id);
    if (!row) throw not_attached("this session is not attached");
    return *row;
  }
  const auto provider = optional_string(req, "provider", 32);
  if (provider && !valid_provider(*provider)) {
    throw Error(ErrorCode::bad_request, "field 'provider' must be lower-case letters, digits, '_' or '-'");
  }
  const auto session_id = optional_string(req, "session_id", 200);
  SessionKey session;
  if (session_id) {
    // The host named the chat (Codex thread id): it must belong to the calling provider process (R-C7, R-C8).
    if (!provider) throw Error(ErrorCode::bad_request, "field 'provider' is required with 'session_id'");
    session = session_key(req);
    const auto row = bridge.journal().find_attachment(session.provider, session.session_id);
    if (!row) throw not_attached("this " + session.provider + " chat (" + session.session_id + ") is not attached");
    if (!registered_for(bridge, *row, *key)) {
      throw not_attached("the " + session.provider + " chat " + session.session_id +
                         " is not registered for the calling " + session.provider +
                         " process (a hook of this chat has not reported from it since the bridge started)");
    }
    return *row;
  }
  auto registered = bridge.registry().session_for(*key);
  if (!registered) registered = stored_session(bridge, *key);
  if (!registered) {
    throw not_attached("no chat is registered for this " + (provider ? *provider : std::string("provider")) +
                       " process (pid " + std::to_string(key->pid) +
                       "): its hooks have not reported to the bridge since it started, or the chat is not attached");
  }
  if (provider && registered->provider != *provider) {
    throw not_attached("the chat registered for this process is a " + registered->provider + " chat, not " +
                       *provider);
  }
  if (is_provider(registered->provider, Provider::codex)) {
    // One Codex process hosts many threads: only the host's thread id says which one (R-C8).
    throw Error(ErrorCode::bad_request,
                "a Codex chat must be named by its thread id (_meta[\"x-codex-turn-metadata\"].thread_id for MCP, "
                "CODEX_THREAD_ID for `agentworks bridge message`); the calling process alone is ambiguous");
  }
  const auto row = bridge.journal().find_attachment(registered->provider, registered->session_id);
  if (!row) throw not_attached("this " + registered->provider + " chat is not attached");
  return *row;
}

AttachmentRow resolve_usable_attachment(SessionLookup& bridge, const json& req) {
  auto row = resolve_attachment(bridge, req);
  if (row.state == AttachmentState::fenced) {
    throw Error(ErrorCode::fenced,
                "this chat's attachment was superseded, detached or revoked; " + std::string(kAttachHint) + " again");
  }
  return row;
}

}  // namespace agentworks::bridge
