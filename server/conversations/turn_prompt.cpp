#include "conversations/turn_prompt.hpp"

namespace agentworks::server::conversations {

namespace {

constexpr std::size_t kRecapMessages = 20;

std::string sender_of(const Message& m) {
  if (m.kind == "wakeup") return "your own wakeup (nobody wrote it; answer in the conversation only if it needs)";
  if (m.kind == "call_outcome") return "the server: the outcome of your call " + m.call_id.value_or("?");
  if (m.kind == "call_question")
    return "the server: your call " + m.call_id.value_or("?") + " asks a question (answer with reply_function_call)";
  if (m.sender_agent_name) return "agent " + *m.sender_agent_name;
  return "a person (connection " + m.sender_conn + ")";
}

}  // namespace

std::string turn_prompt(const TurnPromptInput& in) {
  std::string p;
  if (in.first_turn) {
    p += "You are the agent of the Crew '" + in.crew_name +
         "' (this project folder), answering a conversation through agentworks.\n\nYour instructions:\n" +
         in.instructions + "\n\n";
  }
  if (!in.earlier.empty()) {
    p += "Your earlier session of this conversation was lost in a crash. What was said to you before (already "
         "handled or cut short; do not answer it again unless the new messages ask):\n";
    const std::size_t from = in.earlier.size() > kRecapMessages ? in.earlier.size() - kRecapMessages : 0;
    for (std::size_t i = from; i < in.earlier.size(); ++i)
      p += "- " + sender_of(in.earlier[i]) + ": " + in.earlier[i].body + "\n";
    p += "\n";
  }
  p += in.messages.size() == 1 ? "A new message" : std::to_string(in.messages.size()) + " new messages";
  p += " in conversation " + in.inbox_id + ":\n";
  for (const Message& m : in.messages) p += "\n[" + m.message_id + " from " + sender_of(m) + "]\n" + m.body + "\n";
  p += "\nOnly what you send with the send_message tool reaches the sender; your own text here is read by nobody. "
       "Answer with send_message (more than one if you need), or call no_reply when on purpose no answer is "
       "needed. Later messages of this conversation come in later turns of this same session; to look at something "
       "again later, schedule_message_wakeup prompts a turn here when it is due.";
  return p;
}

std::string silent_turn_question(const std::string& inbox_id) {
  return "You ended your turn without replying in conversation " + inbox_id +
         ". The sender reads only what send_message sends: answer now with send_message, or call no_reply if on "
         "purpose no answer is needed.";
}

}  // namespace agentworks::server::conversations
