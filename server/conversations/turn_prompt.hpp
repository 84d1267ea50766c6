// What a Crew's agent reads at the start of a conversation turn (R-K2): who it is, its instructions from
// crew.json, the messages its turn answers (sender and id each), and how it answers: only send_message reaches the
// sender, no_reply declines on purpose (R-X2). And the one question after a silent turn (R-X3).
#pragma once

#include <string>
#include <vector>

#include "store/records.hpp"

namespace agentworks::server::conversations {

struct TurnPromptInput {
  std::string crew_name;
  std::string instructions;
  std::string inbox_id;
  bool first_turn = true;
  std::vector<Message> messages;
  // A session lost in a crash, started afresh: the conversation's earlier messages, recapped (the last ones).
  std::vector<Message> earlier;
};

std::string turn_prompt(const TurnPromptInput& in);
std::string silent_turn_question(const std::string& inbox_id);

}  // namespace agentworks::server::conversations
