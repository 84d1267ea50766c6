// Cursor text: "0" (start), "m<N>" (mailbox space) or "i<N>" (inbox space). docs/protocol.md "Cursors".
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace agentworks::server {

// Returns the space ('m', 'i', or 0 for the start) and N; bad_request for anything else.
std::pair<char, std::int64_t> parse_cursor(const std::string& text);

}  // namespace agentworks::server
