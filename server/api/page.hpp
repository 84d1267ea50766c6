// A read page: {"messages":[…],"next_cursor"} in the read's cursor space (used by reads and woken long polls).
#pragma once

#include <string>
#include <vector>

#include "store/records.hpp"

namespace agentworks::server {

// The page as JSON text.
std::string page_text(const std::vector<Message>& messages, bool mailbox, const std::string& after);

}  // namespace agentworks::server
