// Which chat holds an agent name right now, asked before a typed attach takes it (R-H7): a name held
// by another connected chat moves only when the person repeats the command with `--take`, and both chats are told.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/config.hpp"
#include "request/reply.hpp"
#include "request/request_fields.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class ServerCalls;

struct NameHolder {
  std::string attachment_id;
  std::string provider;
  std::string session_id;
  std::int64_t since = 0;  // when that chat attached the name (the server's created_at)
  bool connected = false;  // a live chat: attached on this bridge, or a stream open on the server
  bool local = false;      // a chat of this bridge
};

// The server's current attachment of `agent` (GET /v1/attachments with the person's login) when another
// session than `self` holds it; nullopt when nobody does or the name is unknown. Errors that would also stop the
// attach (unreachable, ...) answer `reply`; a name the login may not use is left for the attach to refuse.
void find_name_holder(ServerCalls& bridge, const Config& cfg, const SessionKey& self, const std::string& agent,
                      const Reply& reply, std::function<void(std::optional<NameHolder>)> done);

// "a connected Codex chat (session 019a2b3c…7d8e, attached since 13:02 UTC)"
std::string holder_description(const NameHolder& holder);
// "a Claude chat (session 1a2b3c4d…9f0e)"
std::string chat_description(const std::string& provider, const std::string& session_id);
std::string clock_time(std::int64_t unix_seconds);  // "13:05 UTC"
nlohmann::json holder_json(const NameHolder& holder);

// The sentence the losing chat sees (its turn end, its status): which chat took the name, and how to take it back.
std::string name_loss_sentence(const AttachmentRow& row, const NameLoss& loss);

}  // namespace agentworks::bridge
