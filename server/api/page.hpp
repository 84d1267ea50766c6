// A read page: {"messages":[…],"next_cursor"} in the read's cursor space (used by reads and woken long polls).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "store/records.hpp"

namespace agentworks::server {

nlohmann::json page_json(const std::vector<Message>& messages, bool mailbox, const std::string& after);

}  // namespace agentworks::server
