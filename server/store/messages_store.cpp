// Sending, reading and receipts (R-M1, R-M2, R-M3, R-M7, R-M10, R-M14).
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/cursor.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server {
namespace {

#define AW_MESSAGE_COLUMNS                                                                                    \
  "SELECT seq, inbox_seq, message_id, account_id, conversation_id, inbox_id, direction, sender_conn,"        \
  " sender_agent_id, sender_agent_name, recipient_agent_id, recipient_agent_name, recipient_conn, body,"     \
  " created_at, state, admitted_at, processed_at, via, kind, call_id, call_status, reply_state FROM messages "

Message read_message(db::Statement& s) {
  Message m;
  m.seq = s.int64(0);
  m.inbox_seq = s.int64(1);
  m.message_id = s.text(2);
  m.account_id = s.text(3);
  m.conversation_id = s.text(4);
  m.inbox_id = s.text(5);
  m.direction = s.text(6);
  m.sender_conn = s.text(7);
  m.sender_agent_id = s.opt_text(8);
  m.sender_agent_name = s.opt_text(9);
  m.recipient_agent_id = s.opt_text(10);
  m.recipient_agent_name = s.opt_text(11);
  m.recipient_conn = s.text(12);
  m.body = s.text(13);
  m.created_at = s.int64(14);
  m.state = message_state_column(s.text(15));
  m.admitted_at = s.opt_int64(16);
  m.processed_at = s.opt_int64(17);
  m.via = s.opt_text(18);
  if (auto kind = s.opt_text(19)) m.kind = std::move(*kind);
  m.call_id = s.opt_text(20);
  m.call_status = s.opt_text(21);
  m.reply_state = s.opt_text(22);
  return m;
}


}  // namespace

std::optional<Message> Store::message_by_id(const std::string& message_id) {
  Q q(*this, AW_MESSAGE_COLUMNS "WHERE message_id = ?");
  q->bind(1, message_id);
  if (!q->step()) return std::nullopt;
  return read_message(*q);
}

namespace {

void check_send_input(const SendInput& in) {
  if (in.target.has_value() == in.inbox_id.has_value())
    throw Error(ErrorCode::bad_request, "give exactly one of target (\"agent:NAME\" or \"crew:NAME\") or inbox_id");
  if (!valid_message_text(in.message))
    throw Error(ErrorCode::invalid_message, kMessageRule);
  if (in.submission_id) check_submission_id(*in.submission_id);
}

}  // namespace

// Checks, finds who speaks, answers a repeated submission with its first receipt, routes the message to its
// conversation, and stores it (message row, conversation counters, submission) in the request's transaction.
Receipt Store::send(const Connection& caller, const SendInput& in) {
  check_send_input(in);
  const std::optional<Agent> speaker = send_speaker(caller, in);
  const std::string target_key = in.target ? fold_name(*in.target) : *in.inbox_id;
  const std::string fingerprint =
      sha256_hex(target_key + "\n" + (speaker ? speaker->agent_id : std::string()) + "\n" + in.message);
  if (auto first = earlier_submission(caller, in, fingerprint)) return *first;

  Message m;
  Conversation conv = route_send(caller, speaker, in, m);
  check_rate(conv);
  make_room_in_inbox(conv);
  fill_sent_message(caller, speaker, conv, in, m);
  store_sent_message(conv, m);
  if (in.submission_id) record_submission(caller, *in.submission_id, fingerprint, m);
  Receipt r{m.message_id, m.conversation_id, m.inbox_id, false};
  request_events_.messages.push_back(std::move(m));
  return r;
}

// A child always speaks as its own agent; a login connection as agent_name when given, else as itself.
std::optional<Agent> Store::send_speaker(const Connection& caller, const SendInput& in) {
  if (!caller.is_login()) {
    if (in.agent_name && (!caller.agent_name || fold_name(*in.agent_name) != fold_name(*caller.agent_name)))
      throw Error(ErrorCode::forbidden, "a child connection may speak only as its own agent");
    auto speaker = caller.agent_id ? agent_by_id(*caller.agent_id) : std::nullopt;
    if (!speaker) throw Error(ErrorCode::forbidden, "this child connection's agent is no longer registered");
    return speaker;
  }
  if (in.agent_name) return require_allowed(caller, *in.agent_name);
  return std::nullopt;
}

// R-M2: the first receipt for a submission id seen before; a different message under it is a conflict.
std::optional<Receipt> Store::earlier_submission(const Connection& caller, const SendInput& in,
                                                 const std::string& fingerprint) {
  if (!in.submission_id) return std::nullopt;
  Q q(*this,
      "SELECT fingerprint, message_id, conversation_id, inbox_id FROM submissions"
      " WHERE account_id = ? AND submission_id = ?");
  q->bind(1, caller.account_id).bind(2, *in.submission_id);
  if (!q->step()) return std::nullopt;
  if (q->text(0) != fingerprint)
    throw Error(ErrorCode::conflict, "submission_id was already used for a different message; mint a new one");
  return Receipt{q->text(1), q->text(2), q->text(3), true};
}

// The conversation a send goes into and who receives it: a new or continued one for "agent:NAME", else the
// given inbox's, where the target agent's answer goes back to the initiator.
Conversation Store::route_send(const Connection& caller, const std::optional<Agent>& speaker, const SendInput& in,
                               Message& m) {
  if (in.target) {
    const std::string& t = *in.target;
    if (t.rfind("crew:", 0) == 0 && !in.crew_agent)
      throw Error(ErrorCode::internal, "a crew: target reached the store without its Crew's admission");
    if (t.rfind("agent:", 0) != 0 && !in.crew_agent)
      throw Error(ErrorCode::bad_request, "target must look like \"agent:NAME\" or \"crew:NAME\"");
    const Agent target = in.crew_agent ? *in.crew_agent : require_agent(caller, t.substr(6));
    Conversation conv = open_conversation_for_send(caller, speaker, target);
    m.direction = "to_agent";
    m.recipient_agent_id = target.agent_id;
    m.recipient_agent_name = target.name;
    return conv;
  }
  auto found = conversation_by_inbox(*in.inbox_id);
  if (!found || found->account_id != caller.account_id)
    throw Error(ErrorCode::not_found, "no inbox '" + *in.inbox_id + "'");
  Conversation conv = *found;
  if (conv.initiator_conn == kWakeupInitiator)
    throw Error(ErrorCode::bad_request, "inbox " + conv.inbox_id + " carries the agent's wakeups and takes no "
                                        "messages; schedule or cancel wakeups instead (agentworks wakeups --help)");
  if (conv.carries_notices())
    throw Error(ErrorCode::bad_request, "inbox " + conv.inbox_id + " carries the notices of call " +
                                            conv.initiator_conn + " and takes no messages; read the call instead "
                                            "(get_function_call, or agentworks functions call-status --call " +
                                            conv.initiator_conn + ")");
  expire_if_idle(conv);
  if (conv.state != ConversationState::open) throw Error(ErrorCode::expired, "this inbox expired; start a new conversation");
  const auto target = agent_by_id(conv.target_agent_id);
  if (!target) throw Error(ErrorCode::not_found, "the conversation's agent is no longer registered");
  if (speaker && speaker->agent_id == conv.target_agent_id) {
    address_to_initiator(conv, m);
    return conv;
  }
  if (!caller.is_login() && !is_party(caller, conv, speaker))
    throw Error(ErrorCode::forbidden, "this child connection's agent is not a party to this conversation");
  m.direction = "to_agent";
  m.recipient_agent_id = target->agent_id;
  m.recipient_agent_name = target->name;
  return conv;
}

// The target agent's answer goes back to whoever started the conversation (its agent, when it spoke as one).
void Store::address_to_initiator(const Conversation& conv, Message& m) {
  m.direction = "to_initiator";
  if (!conv.initiator_agent_id) return;
  const auto initiator = agent_by_id(*conv.initiator_agent_id);
  if (!initiator) throw Error(ErrorCode::not_found, "the initiating agent is no longer registered");
  m.recipient_agent_id = initiator->agent_id;
  m.recipient_agent_name = initiator->name;
}

void Store::fill_sent_message(const Connection& caller, const std::optional<Agent>& speaker,
                              const Conversation& conv, const SendInput& in, Message& m) {
  m.message_id = new_time_ordered_id("msg");
  m.account_id = caller.account_id;
  m.conversation_id = conv.conversation_id;
  m.inbox_id = conv.inbox_id;
  m.inbox_seq = conv.next_inbox_seq;
  m.sender_conn = caller.connection_id;
  if (speaker) {
    m.sender_agent_id = speaker->agent_id;
    m.sender_agent_name = speaker->name;
  }
  m.recipient_conn = m.direction == "to_initiator" ? conv.initiator_conn : std::string();
  m.body = in.message;
  m.created_at = now();
  m.state = MessageState::stored;
}

// The conversation's counters first, queued: PostgreSQL sends them with the INSERT, one round trip for both.
void Store::store_sent_message(const Conversation& conv, Message& m) {
  {
    Q q(*this,
        "UPDATE conversations SET last_activity = ?, next_inbox_seq = next_inbox_seq + 1, message_count = ?,"
        " rate_window = ? WHERE conversation_id = ?");
    // The server's own lines (a notice, a status) are not the sender's and do not count toward its rate (R-X3).
    q->bind(1, m.created_at).bind(2, conv.message_count + 1);
    q->bind(3, m.is_notice() ? conv.rate_window : count_in_rate_window(conv));
    q->bind(4, conv.conversation_id).run_soon();
  }
  Q q(*this,
      "INSERT INTO messages(message_id, account_id, conversation_id, inbox_id, inbox_seq, direction, sender_conn,"
      " sender_agent_id, sender_agent_name, recipient_agent_id, recipient_agent_name, recipient_conn, body,"
      " created_at, kind, call_id, call_status) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING seq");
  q->bind(1, m.message_id).bind(2, m.account_id).bind(3, m.conversation_id).bind(4, m.inbox_id);
  q->bind(5, m.inbox_seq).bind(6, m.direction).bind(7, m.sender_conn).bind(8, m.sender_agent_id);
  q->bind(9, m.sender_agent_name).bind(10, m.recipient_agent_id).bind(11, m.recipient_agent_name);
  q->bind(12, m.recipient_conn).bind(13, m.body).bind(14, m.created_at);
  q->bind(15, m.is_notice() ? std::optional<std::string>(m.kind) : std::nullopt);
  q->bind(16, m.call_id).bind(17, m.call_status);
  if (!q->step()) throw Error(ErrorCode::internal, "the store assigned the message no sequence number");
  m.seq = q->int64(0);
  q->run();  // SQLite finishes the INSERT when RETURNING's rows are read to the end
  if (m.sender_agent_id && !m.is_notice()) {
    // R-X2: an agent that speaks in a conversation has answered what it received there before (a decline too).
    Q replied(*this,
              "UPDATE messages SET reply_state = 'replied' WHERE conversation_id = ? AND inbox_seq < ?"
              " AND recipient_agent_id = ? AND kind IS NULL"
              " AND (reply_state IS NULL OR reply_state IN ('no_reply', 'unanswered'))");
    replied->bind(1, m.conversation_id).bind(2, m.inbox_seq).bind(3, m.sender_agent_id).run_soon();
  }
}

void Store::record_submission(const Connection& caller, const std::string& submission_id,
                              const std::string& fingerprint, const Message& m) {
  Q q(*this,
      "INSERT INTO submissions(account_id, submission_id, fingerprint, message_id, conversation_id, inbox_id,"
      " created_at) VALUES(?,?,?,?,?,?,?)");
  q->bind(1, caller.account_id).bind(2, submission_id).bind(3, fingerprint).bind(4, m.message_id);
  q->bind(5, m.conversation_id).bind(6, m.inbox_id).bind(7, m.created_at).run_soon();
}

ReadTarget Store::resolve_read(const Connection& caller, const ReadInput& in) {
  const auto [space, after] = parse_cursor(in.after.value_or("0"));
  ReadTarget target;
  target.after = after;
  std::optional<Agent> speaker;
  if (in.agent_name) {
    if (!caller.is_login() && (!caller.agent_name || fold_name(*in.agent_name) != fold_name(*caller.agent_name)))
      throw Error(ErrorCode::forbidden, "a child connection may read only as its own agent");
    speaker = require_allowed(caller, *in.agent_name);
  }
  if (in.inbox_id) {
    if (space == 'm') throw Error(ErrorCode::cursor_mismatch, "inbox reads take inbox cursors (i<N>), not m<N>");
    auto c = conversation_by_inbox(*in.inbox_id);
    if (!c || c->account_id != caller.account_id) throw Error(ErrorCode::not_found, "no inbox '" + *in.inbox_id + "'");
    expire_if_idle(*c);
    if (c->state != ConversationState::open) throw Error(ErrorCode::expired, "this inbox expired; start a new conversation");
    if (!is_party(caller, *c, speaker))
      throw Error(ErrorCode::forbidden, "this connection is not a party to this conversation");
    target.mailbox = false;
    target.key = c->conversation_id;
    return target;
  }
  if (space == 'i') throw Error(ErrorCode::cursor_mismatch, "mailbox reads take mailbox cursors (m<N>), not i<N>");
  if (!speaker) {
    if (caller.is_login())
      throw Error(ErrorCode::bad_request, "give inbox_id or agent_name to say which messages to read");
    speaker = caller.agent_id ? agent_by_id(*caller.agent_id) : std::nullopt;
    if (!speaker) throw Error(ErrorCode::forbidden, "this child connection's agent is no longer registered");
  }
  target.mailbox = true;
  target.key = speaker->agent_id;
  return target;
}

std::vector<Message> Store::fetch(const ReadTarget& target, int limit, std::int64_t up_to_seq) {
  std::vector<Message> out;
  if (target.mailbox) {
    Q q(*this, AW_MESSAGE_COLUMNS "WHERE recipient_agent_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?");
    q->bind(1, target.key).bind(2, target.after).bind(3, up_to_seq).bind(4, limit);
    while (q->step()) out.push_back(read_message(*q));
  } else {
    Q q(*this, AW_MESSAGE_COLUMNS
        "WHERE conversation_id = ? AND inbox_seq > ? AND seq <= ? ORDER BY inbox_seq LIMIT ?");
    q->bind(1, target.key).bind(2, target.after).bind(3, up_to_seq).bind(4, limit);
    while (q->step()) out.push_back(read_message(*q));
  }
  return out;
}

namespace {
bool is_receiver(Store& store, const Connection& caller, const Message& m) {
  if (m.recipient_agent_id) {
    const auto agent = store.agent_by_id(*m.recipient_agent_id);
    return agent && store.allowed(caller, *agent);
  }
  return caller.connection_id == m.recipient_conn;
}
bool is_sender(Store& store, const Connection& caller, const Message& m) {
  if (caller.connection_id == m.sender_conn) return true;
  if (!m.sender_agent_id) return false;
  const auto agent = store.agent_by_id(*m.sender_agent_id);
  return agent && store.allowed(caller, *agent);
}
}  // namespace

Message Store::receipt_get(const Connection& caller, const std::string& message_id) {
  auto m = message_by_id(message_id);
  if (!m || m->account_id != caller.account_id) throw Error(ErrorCode::not_found, "no message '" + message_id + "'");
  if (!is_sender(*this, caller, *m) && !is_receiver(*this, caller, *m))
    throw Error(ErrorCode::forbidden, "only the sender or the receiver may see this receipt");
  return *m;
}

Message Store::receipt_set(const Connection& caller, const std::string& message_id, const std::string& state,
                           const std::optional<std::string>& via, const std::optional<std::string>& reply_state) {
  const bool no_reply = reply_state == "no_reply";
  const auto delivery = parse_message_state(state);
  if (delivery != MessageState::admitted && delivery != MessageState::processed)
    throw Error(ErrorCode::bad_request, "delivery must be \"admitted\" or \"processed\"");
  if (no_reply && delivery != MessageState::processed)
    throw Error(ErrorCode::bad_request, "reply_state \"no_reply\" goes with delivery \"processed\": a declined "
                                        "message was handled");
  if (via) {
    bool ok = !via->empty() && via->size() <= 64;
    for (const char ch : *via) ok = ok && ch >= 0x20 && ch < 0x7f;
    if (!ok) throw Error(ErrorCode::bad_request, "via must be 1-64 printable ASCII characters");
  }
  auto m = message_by_id(message_id);
  if (!m || m->account_id != caller.account_id) throw Error(ErrorCode::not_found, "no message '" + message_id + "'");
  if (!is_receiver(*this, caller, *m)) throw Error(ErrorCode::forbidden, "only the receiver may set delivery state");
  if (reply_state && m->is_notice())
    throw Error(ErrorCode::bad_request, "message " + message_id + " is the server's notice (" + m->kind + "), not a message to answer");
  if (no_reply && (!m->reply_state || *m->reply_state == "unanswered")) {
    // R-X2: a reply already made stays the answer; a repeat changes nothing; a decline after a silent turn counts.
    m->reply_state = "no_reply";
    Q q(*this, "UPDATE messages SET reply_state = 'no_reply' WHERE seq = ? AND (reply_state IS NULL OR reply_state = 'unanswered')");
    q->bind(1, m->seq).run();
  } else if (reply_state == "unanswered" && !m->reply_state) {
    // R-X3: the conditional UPDATE picks one writer when two race (replicas, a retried receipt): it tells the sender.
    Q q(*this, "UPDATE messages SET reply_state = 'unanswered' WHERE seq = ? AND reply_state IS NULL RETURNING seq");
    q->bind(1, m->seq);
    const bool first = q->step();
    q->run();
    if (first) {
      m->reply_state = "unanswered";
      store_status_line(*m);
    }
  }
  if (*delivery <= m->state) return *m;  // never backwards (the enum is in order); a repeat is a no-op
  const std::int64_t t = now();
  if (!m->admitted_at) m->admitted_at = t;
  if (*delivery == MessageState::processed) m->processed_at = t;
  m->state = *delivery;
  if (via) m->via = via;
  Q q(*this, "UPDATE messages SET state = ?, admitted_at = ?, processed_at = ?, via = ? WHERE seq = ?");
  q->bind(1, state_text(m->state)).bind(2, m->admitted_at).bind(3, m->processed_at).bind(4, m->via).bind(5, m->seq).run();
  if (m->kind == "wakeup") note_wakeup_acknowledged(*this, m->message_id);  // R-W5: delivered
  return *m;
}

void Store::store_status_line(const Message& about) {
  auto conv = conversation_by_id(about.conversation_id);
  if (!conv || conv->state != ConversationState::open) return;  // the sender's inbox is gone: nobody to tell
  Message m;
  m.message_id = new_time_ordered_id("msg");
  m.account_id = about.account_id;
  m.conversation_id = conv->conversation_id;
  m.inbox_id = conv->inbox_id;
  m.inbox_seq = conv->next_inbox_seq;
  m.sender_conn = "agentworks";
  if (about.direction == "to_agent") {  // the sender started the conversation
    m.direction = "to_initiator";
    m.recipient_conn = conv->initiator_conn;
    m.recipient_agent_id = conv->initiator_agent_id;
    if (conv->initiator_agent_id)
      if (const auto a = agent_by_id(*conv->initiator_agent_id)) m.recipient_agent_name = a->name;
  } else {
    m.direction = "to_agent";
    m.recipient_agent_id = conv->target_agent_id;
    if (const auto a = agent_by_id(conv->target_agent_id)) m.recipient_agent_name = a->name;
  }
  const std::string who = about.recipient_agent_name.value_or("the receiving agent");
  m.body = who + " ended its turn without replying to " + about.message_id + ".";
  m.created_at = now();
  m.kind = "status";
  store_sent_message(*conv, m);
  request_events_.messages.push_back(m);
}

std::vector<Message> Store::turn_messages(const std::string& conversation_id, std::int64_t after,
                                          std::int64_t up_to) {
  std::vector<Message> out;
  Q q(*this, AW_MESSAGE_COLUMNS "WHERE conversation_id = ? AND " AW_TURN_INPUT
             " AND inbox_seq > ? AND inbox_seq <= ? ORDER BY inbox_seq");
  q->bind(1, conversation_id).bind(2, after).bind(3, up_to);
  while (q->step()) out.push_back(read_message(*q));
  return out;
}

Receipt Store::send_as_target(const std::string& conversation_id, const std::string& text,
                              const std::optional<std::string>& submission_id) {
  if (!valid_message_text(text)) throw Error(ErrorCode::invalid_message, kMessageRule);
  if (submission_id) check_submission_id(*submission_id);
  auto found = conversation_by_id(conversation_id);
  if (!found) throw Error(ErrorCode::not_found, "the conversation is gone");
  Conversation conv = *found;
  expire_if_idle(conv);
  if (conv.state != ConversationState::open) throw Error(ErrorCode::expired, "this conversation expired");
  const auto speaker = agent_by_id(conv.target_agent_id);
  if (!speaker) throw Error(ErrorCode::not_found, "the conversation's agent is no longer registered");
  Connection as_agent;  // not a stored connection: the agent speaks through its turn (R-K2)
  as_agent.connection_id = speaker->crew_id.value_or(speaker->agent_id);
  as_agent.account_id = conv.account_id;
  SendInput in;
  in.message = text;
  in.submission_id = submission_id;
  // R-M2: a retried send of the turn answers its first receipt, never a second message.
  const std::string fingerprint = sha256_hex(conversation_id + "\n" + speaker->agent_id + "\n" + text);
  if (auto first = earlier_submission(as_agent, in, fingerprint)) return *first;
  Message m;
  address_to_initiator(conv, m);
  check_rate(conv);
  make_room_in_inbox(conv);
  fill_sent_message(as_agent, speaker, conv, in, m);
  store_sent_message(conv, m);
  if (submission_id) record_submission(as_agent, *submission_id, fingerprint, m);
  Receipt r{m.message_id, m.conversation_id, m.inbox_id, false};
  request_events_.messages.push_back(std::move(m));
  return r;
}

std::optional<std::string> Store::inbox_crew(const Connection& caller, const std::string& inbox_id) {
  Q q(*this,
      "SELECT a.crew_id FROM conversations c JOIN agents a ON a.agent_id = c.target_agent_id"
      " WHERE c.inbox_id = ? AND c.account_id = ?");
  q->bind(1, inbox_id).bind(2, caller.account_id);
  if (!q->step()) return std::nullopt;
  return q->opt_text(0);
}

std::vector<Message> Store::messages_after(std::int64_t seq, int limit) {
  std::vector<Message> out;
  Q q(*this, AW_MESSAGE_COLUMNS "WHERE seq > ? ORDER BY seq LIMIT ?");
  q->bind(1, seq).bind(2, limit);
  while (q->step()) out.push_back(read_message(*q));
  return out;
}

std::int64_t Store::last_message_seq() {
  Q q(*this, "SELECT COALESCE(MAX(seq), 0) FROM messages");
  return q->step() ? q->int64(0) : 0;
}

}  // namespace agentworks::server
