#include "api/page.hpp"

#include <nlohmann/json.hpp>

#include "api/json_out.hpp"

namespace agentworks::server {

nlohmann::json page_json(const std::vector<Message>& messages, bool mailbox, const std::string& after) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& m : messages) list.push_back(message_json(m, mailbox));
  std::string next = after;
  if (!messages.empty())
    next = (mailbox ? "m" : "i") + std::to_string(mailbox ? messages.back().seq : messages.back().inbox_seq);
  return nlohmann::json{{"messages", list}, {"next_cursor", next}};
}

}  // namespace agentworks::server
