#include "api/page.hpp"

#include "api/json_out.hpp"
#include "api/json_text.hpp"

namespace agentworks::server {

std::string page_text(const std::vector<Message>& messages, bool mailbox, const std::string& after) {
  std::string out = R"({"messages":[)";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += ',';
    out += message_text(messages[i], mailbox);
  }
  std::string next = after;
  if (!messages.empty())
    next = (mailbox ? "m" : "i") + std::to_string(mailbox ? messages.back().seq : messages.back().inbox_seq);
  out += R"(],"next_cursor":)";
  append_json_string(out, next);
  out += '}';
  return out;
}

}  // namespace agentworks::server
