// Renders store rows as the wire objects of docs/protocol.md ("Objects").
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "request/response.hpp"  // dump(), the one JSON text rule
#include "store/records.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server {

// A message object as JSON text (api/json_text.hpp: written directly, it is the object sent most). `mailbox`
// selects the cursor space of `cursor`: m<seq> for mailbox reads and SSE, i<inbox_seq> for inbox reads.
std::string message_text(const Message& m, bool mailbox);
nlohmann::json delivery_json(const Message& m);
nlohmann::json agent_json(const Agent& a, const std::optional<std::vector<std::string>>& allowed_ids, bool connected);
nlohmann::json attachment_json(const Attachment& a, int streams);
nlohmann::json connection_json(const Connection& c);
// A wakeup (R-W5) as its owner sees it at `now` (a pending one past its time reads `due`).
nlohmann::json wakeup_json(const Wakeup& w, std::int64_t now);

}  // namespace agentworks::server
