// Plain rows of the server store. No JSON here: api/json_out.cpp renders them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/states.hpp"

namespace agentworks::server {

struct Connection {
  std::string connection_id;
  std::string account_id;
  std::string account_name;
  std::string kind;  // "login" or "child"
  std::optional<std::string> agent_id;    // child: the bound agent
  std::optional<std::string> agent_name;  // child: its display name
  std::optional<std::string> parent_id;
  std::string label;
  std::int64_t created_at = 0;
  bool revoked = false;
  bool is_login() const { return kind == "login"; }
  // A served Crew's runner (R-R1, R-R2): a child of the person's login reaching only that Crew's runner routes.
  bool is_runner() const { return kind == "runner"; }
  // Not a stored connection: a function execution acting with its call's secret (R-D4). connection_id is its call,
  // account_id its Crew's owner; it reaches only the calls it made.
  bool is_execution() const { return kind == "execution"; }
  // Not a stored connection: a Crew agent's conversation turn acting with its turn's secret (R-K2 with R-D4).
  // connection_id is its conversation, account_id its Crew's owner, agent_id the Crew's agent; it reaches only the
  // calls made from that conversation.
  bool is_turn() const { return kind == "turn"; }
};

struct Agent {
  std::string agent_id;
  std::string account_id;
  std::string name;  // display spelling from the first registration
  std::string purpose;
  std::string provider;
  std::int64_t created_at = 0;
  // R-X1: "explicit" (only the message tools speak) or "direct" (the final text of a turn that took messages from
  // one conversation is its reply); set by the person.
  std::string communication = "explicit";
  // R-X3: whether a silent turn is asked once to answer before its messages read `unanswered`; set by the person.
  bool nudge = true;
  // R-K1: the hidden agent of a Crew (its own agent, named "crew:NAME"): never listed, never a name to register.
  std::optional<std::string> crew_id;
};

struct Conversation {
  std::string conversation_id;
  std::string inbox_id;
  std::string account_id;
  std::string initiator_conn;
  std::optional<std::string> initiator_agent_id;
  std::optional<std::string> initiator_agent_name;
  std::string target_agent_id;
  std::string target_agent_name;
  std::int64_t created_at = 0;
  std::int64_t last_activity = 0;
  ConversationState state = ConversationState::open;
  std::optional<std::int64_t> expired_at;
  std::int64_t next_inbox_seq = 1;
  std::int64_t message_count = 0;
  std::string rate_window;  // "minute:count,…" for the last hour (R-M10)
  // The server's notices to one agent: a call's (R-D2; initiator_conn holds its call id) or the agent's wakeups
  // (R-W2; kWakeupInitiator). No connection has either id, so the conversation takes no sends.
  bool carries_notices() const { return initiator_conn.rfind("call_", 0) == 0 || initiator_conn == "wakeups"; }
};

struct Message {
  std::int64_t seq = 0;        // mailbox cursor space
  std::int64_t inbox_seq = 0;  // inbox cursor space
  std::string message_id;
  std::string account_id;
  std::string conversation_id;
  std::string inbox_id;
  std::string direction;  // to_agent | to_initiator
  std::string sender_conn;
  std::optional<std::string> sender_agent_id;
  std::optional<std::string> sender_agent_name;
  std::optional<std::string> recipient_agent_id;
  std::optional<std::string> recipient_agent_name;
  std::string recipient_conn;
  std::string body;
  std::int64_t created_at = 0;
  MessageState state = MessageState::stored;
  std::optional<std::int64_t> admitted_at;
  std::optional<std::int64_t> processed_at;
  std::optional<std::string> via;
  // What the message is (R-D2, R-W2): "message" (an agent's or a person's words), or a notice the server wrote:
  // about a function call, "call_outcome" or "call_question", with the call and its status when it was written;
  // or "wakeup", a wakeup the agent scheduled; or "status", a line to a sender whose message went unanswered (R-X3).
  std::string kind = "message";
  std::optional<std::string> call_id;
  std::optional<std::string> call_status;
  bool is_notice() const { return kind != "message"; }
  // Whether its recipient answered (R-X2): unset is "pending"; "replied" once the recipient spoke after it in the
  // conversation, "no_reply" when it declined on purpose, "unanswered" when its turn ended silent after a nudge
  // (R-X3). A notice has none.
  std::optional<std::string> reply_state;
  std::string reply_state_text() const { return reply_state.value_or("pending"); }
};

// The initiator of every agent's wakeup conversation (R-W2).
inline constexpr const char* kWakeupInitiator = "wakeups";

// A notice for one agent: about a function call it made or was named for (R-D2), or a wakeup it scheduled (R-W2).
struct Notice {
  std::string account_id;
  std::string agent_id;   // the recipient
  std::string initiator;  // the conversation's: the call id, or kWakeupInitiator
  std::string kind;       // call_outcome, call_question, wakeup
  std::string body;
  std::optional<std::string> call_id;      // a call's notice: the call
  std::optional<std::string> call_status;  // and its status as the notice was written
  std::optional<std::string> message_id;   // chosen by the writer (a wakeup records it first); else a new one
  std::optional<std::string> conversation_id;  // into this open conversation of the agent (a Crew agent's wakeup)
};

struct Attachment {
  std::string attachment_id;
  std::string account_id;
  std::string agent_id;
  std::string agent_name;
  std::string purpose;
  std::string provider;
  std::string native_session_id;
  AttachmentState state = AttachmentState::current;
  std::string created_by;
  std::int64_t created_at = 0;
};

struct Receipt {
  std::string message_id;
  std::string conversation_id;
  std::string inbox_id;
  bool repeated = false;  // a repeated submission_id: nothing new was stored
};

}  // namespace agentworks::server
