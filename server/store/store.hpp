// The server's store, on SQLite (the embedded default) or PostgreSQL (store/database/). One Store per process, used only from the event-loop thread.
// Methods take the authenticated caller and check names/allow-lists themselves, so the HTTP
// handlers stay free of permission code and every rule is testable without sockets.
// Writes happen inside the group-commit batch (begin_batch/commit_batch); what a commit makes
// visible to streams and long polls is collected as StoreEvents.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/database/database.hpp"
#include "limits.hpp"
#include "store/records.hpp"

namespace agentworks::server {

struct StoreEvents {
  std::vector<Message> messages;                                // new messages, commit order
  std::vector<std::pair<std::string, std::string>> fenced;      // attachment_id, reason
  std::vector<std::string> revoked_connections;
  // Function calls committed as running, with their executions' secrets (never stored): start them now.
  std::vector<std::pair<std::string, std::string>> calls_started;
  std::vector<std::string> calls_changed;  // function calls with a new message, event or status: wake waiters
  std::vector<std::string> calls_cancelled;  // asked to end (R-D3): the replica running one kills its tree
  // Crew conversation turns committed as running (R-K2), with their secrets (never stored): start them now.
  std::vector<std::pair<std::string, std::string>> turns_started;
  bool empty() const {
    return messages.empty() && fenced.empty() && revoked_connections.empty() && calls_started.empty() &&
           calls_changed.empty() && calls_cancelled.empty() && turns_started.empty();
  }
};

struct AgentTalk {
  std::optional<std::string> communication;
  std::optional<bool> nudge;
};

struct SendInput {
  std::optional<std::string> target;  // "agent:NAME" or "crew:NAME"
  std::optional<std::string> inbox_id;
  std::string message;
  std::optional<std::string> agent_name;
  std::optional<std::string> submission_id;
  std::optional<Agent> crew_agent;  // R-K1: a "crew:NAME" target, resolved and admitted by crews/crew_talk.hpp
};

struct ReadInput {
  std::optional<std::string> inbox_id;
  std::optional<std::string> agent_name;
  std::optional<std::string> after;
};

// What a read resolved to: a named mailbox (agent_id, seq cursor) or an inbox (conversation, inbox_seq cursor).
struct ReadTarget {
  bool mailbox = true;
  std::string key;  // agent_id or conversation_id
  std::int64_t after = 0;
};

struct ReleaseItem {
  std::string message_id;
  bool releasable = false;
  std::optional<std::string> reason;
};

struct NewConnection {
  Connection connection;
  std::string token;
};

// Where the store lives: PostgreSQL when url is set (--store), else SQLite in data_dir/server.db.
struct StoreLocation {
  std::filesystem::path data_dir;
  std::string url;
  std::string replica_id;  // empty: a fresh one (tools that run no calls)
};

class Store {
 public:
  // SQLite is created or upgraded in place; PostgreSQL must be at this binary's schema version (migrate).
  Store(const StoreLocation& where, Limits limits);
  Store(const std::filesystem::path& data_dir, Limits limits) : Store(StoreLocation{data_dir, {}, {}}, limits) {}
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const Limits& limits() const { return limits_; }
  db::Engine engine() const { return db_->engine(); }
  // This server process among the replicas of one store: it names the calls it runs and its notices.
  const std::string& replica_id() const { return replica_id_; }
  const std::string& url() const { return url_; }  // PostgreSQL's; empty for SQLite
  std::string describe() const { return db_->describe(); }
  // The SQLite file (empty on PostgreSQL).
  std::filesystem::path db_path() const { return path_; }
  // SQLite: the server checkpoints on a background thread (store/checkpointer.hpp) instead; when that thread has
  // copied the whole WAL back, the next commit starts the WAL over and cuts the file back to kWalSizeLimit.
  void disable_autocheckpoint() {
    if (db_->engine() == db::Engine::sqlite) {
      db_->exec("PRAGMA wal_autocheckpoint=0; PRAGMA journal_size_limit=" + std::to_string(kWalSizeLimit));
    }
  }
  static constexpr std::int64_t kWalSizeLimit = 64LL << 20;
  // SQLite under the HTTP server: commits stop flushing the WAL (synchronous=NORMAL) because store/wal_syncer.hpp
  // flushes it on its own thread and the answers wait for that. Until a commit's flush returns, its messages are
  // committed but not durable: durable_seq() says how far streams and long polls may read (fetch's up_to_seq).
  void defer_wal_sync();
  std::int64_t durable_seq() const { return durable_seq_; }
  void set_durable_seq(std::int64_t seq) { durable_seq_ = seq; }
  std::int64_t committed_seq() const { return committed_seq_; }  // the last message seq of the last commit

  // --- group commit (store.cpp) ---
  // Each batch is one transaction with a number of its own. A request's answer is released only by the commit
  // of the batch its work ran in (R-M1): when the engine rolls a batch back under a later request (PostgreSQL's
  // connection lost, SQLite on a full disk), the answers parked for it are never told "stored", whatever the
  // requests after the loss do (they run in the next batch).
  struct BatchCommit {
    std::uint64_t batch = 0;  // the batch this commit made durable; 0: none was open (nothing committed)
    bool wrote = false;       // with the WAL sync deferred: it changed a row (there is something to flush)
  };
  void begin_batch();                 // BEGIN IMMEDIATE unless already open
  bool in_batch() const { return in_batch_; }
  // Throws on failure (the caller then calls rollback_batch).
  BatchCommit commit_batch();
  void rollback_batch();
  // Runs f inside a savepoint of the batch: a failing request changes nothing. Returns the batch f's work is in:
  // its answer waits for commit_batch() to return that batch.
  std::uint64_t in_request(const std::function<void()>& f);
  StoreEvents take_events();

  // --- accounts and connections (accounts_store.cpp) ---
  // Creates the owner account on first start; returns its login token then, else nullopt.
  std::optional<std::string> ensure_owner();
  std::string add_account(const std::string& name);  // login token of the new account
  std::optional<Connection> authenticate(const std::string& token);
  std::optional<Connection> find_connection(const std::string& id);
  NewConnection create_child(const Connection& caller, const std::string& agent_name,
                             const std::string& label, bool supersede_siblings);
  // Another login connection of the caller's account (a second device); it has no parent.
  NewConnection create_login(const Connection& caller, const std::string& label);
  std::vector<Connection> list_connections(const Connection& caller);
  int revoke_connection(const Connection& caller, const std::string& id);

  // --- agents (agents_store.cpp) ---
  std::optional<Agent> find_agent(const std::string& account_id, const std::string& name);
  std::optional<Agent> agent_by_id(const std::string& agent_id, bool include_removed = false);
  // R-X1, R-X3: the person sets how the agent talks ("explicit" or "direct"; bad_request for any other value) and
  // whether its silent turns are nudged; what is not given stays.
  Agent set_talk(const Connection& caller, const std::string& name, const AgentTalk& talk);
  Agent require_agent(const Connection& caller, const std::string& name);  // not_found
  bool allowed(const Connection& caller, const Agent& agent);
  Agent require_allowed(const Connection& caller, const std::string& name);  // not_found / forbidden
  std::pair<Agent, bool> register_agent(const Connection& caller, const std::string& name,
                                        const std::optional<std::string>& purpose,
                                        const std::optional<std::string>& provider,
                                        const std::optional<std::vector<std::string>>& allowed_ids);
  std::vector<Agent> list_agents(const Connection& caller);
  // R-K1: the Crew's hidden agent, the recipient of its conversations; created on the first message.
  Agent crew_agent(const std::string& account_id, const std::string& crew_id, const std::string& crew_name);
  std::optional<Agent> find_crew_agent(const std::string& crew_id);  // nullopt: nobody has talked to it yet
  std::vector<std::string> allow_list(const std::string& agent_id);
  std::string unregister_agent(const Connection& caller, const std::string& name);

  // --- messages (messages_store.cpp, conversations_store.cpp) ---
  Receipt send(const Connection& caller, const SendInput& in);
  ReadTarget resolve_read(const Connection& caller, const ReadInput& in);
  std::vector<Message> fetch(const ReadTarget& target, int limit, std::int64_t up_to_seq = kAnySeq);
  static constexpr std::int64_t kAnySeq = INT64_MAX;
  Message receipt_get(const Connection& caller, const std::string& message_id);
  // The receiver's acknowledgement (R-M7). `reply_state` "no_reply" also declines to answer it on purpose (R-X2);
  // "unanswered" says the receiver's turn ended silent after a nudge (R-X3): the first one, on a message not yet
  // answered or declined, stores one status line to its sender.
  Message receipt_set(const Connection& caller, const std::string& message_id, const std::string& state,
                      const std::optional<std::string>& via, const std::optional<std::string>& reply_state = {});
  Conversation inbox_info(const Connection& caller, const std::string& inbox_id);
  // An inbox of one of the caller's agents, whichever account started it (another account talks to a Crew's agent,
  // R-K1); not_found when `agent_id` is not its receiver.
  Conversation agent_inbox_info(const std::string& agent_id, const std::string& inbox_id);
  std::optional<Conversation> conversation_by_id(const std::string& conversation_id);
  // Expires c when it has been idle past the limit (R-M9); true when it is (now) expired.
  bool expire_if_idle(Conversation& c);
  std::optional<Message> message_by_id(const std::string& message_id);
  // The messages to the conversation's agent with inbox_seq in (after, up_to], oldest first (a Crew turn's, R-K2).
  std::vector<Message> turn_messages(const std::string& conversation_id, std::int64_t after, std::int64_t up_to);
  // R-K2: a message from the conversation's own agent (a Crew's, speaking in its turn) to its initiator.
  Receipt send_as_target(const std::string& conversation_id, const std::string& text,
                         const std::optional<std::string>& submission_id = std::nullopt);
  // R-K3: the Crew whose hidden agent receives in `inbox_id` of the caller's account (nullopt: another agent).
  std::optional<std::string> inbox_crew(const Connection& caller, const std::string& inbox_id);
  // Every message after seq, in sequence order (the replica feed reads what other replicas committed).
  std::vector<Message> messages_after(std::int64_t seq, int limit);
  std::int64_t last_message_seq();
  // A notice (R-D2, R-W2): a message of its own kind in the initiator's own conversation with that agent (one per
  // call or for the agent's wakeups, which takes no sends), outside the send rate, delivered like any message.
  // An empty message when the agent was unregistered since.
  Message store_notice(const Notice& notice);
  // R-X3: "NAME ended its turn without replying to msg_…", kind "status", to the sender of `about` in its own
  // conversation (nothing when that conversation is no longer open).
  void store_status_line(const Message& about);

  // --- attachments (attachments_store.cpp) ---
  Attachment create_attachment(const Connection& caller, const std::string& agent_name, const std::string& purpose,
                               const std::string& provider, const std::string& native_session_id);
  std::vector<Attachment> list_attachments(const Connection& caller, const std::optional<std::string>& agent_name);
  Attachment get_attachment(const Connection& caller, const std::string& id);  // allowed for its name
  Attachment detach_attachment(const Connection& caller, const std::string& id);
  std::vector<ReleaseItem> release_check(const Attachment& att, const std::vector<std::string>& message_ids);
  std::optional<Attachment> attachment_by_id(const std::string& id);
  std::optional<std::string> current_attachment_id(const std::string& agent_id);

  // Function calls (store/calls_store.cpp) report what a commit must start or wake through these.
  void note_call_started(const std::string& call_id, const std::string& token) {
    request_events_.calls_started.emplace_back(call_id, token);
  }
  void note_call_changed(const std::string& call_id) { request_events_.calls_changed.push_back(call_id); }
  void note_call_cancel(const std::string& call_id) { request_events_.calls_cancelled.push_back(call_id); }
  // A served Crew has a call for its runner (R-R1): its parked claim wakes. It rides the calls' wake path, here and
  // on the other replicas (a Crew id never equals a call id).
  void note_crew_work(const std::string& crew_id) { request_events_.calls_changed.push_back(crew_id); }
  void note_turn_started(const std::string& conversation_id, const std::string& token) {
    request_events_.turns_started.emplace_back(conversation_id, token);
  }

  // Cached prepared statement (sql must be a string literal: the cache is keyed by its address).
  db::Statement& stmt(const char* sql);
  int sql_changes() const { return db_->changes(); }

 private:
  // messages_store.cpp: the steps of send()
  std::optional<Agent> send_speaker(const Connection& caller, const SendInput& in);
  std::optional<Receipt> earlier_submission(const Connection& caller, const SendInput& in,
                                            const std::string& fingerprint);
  Conversation route_send(const Connection& caller, const std::optional<Agent>& speaker, const SendInput& in,
                          Message& m);
  void address_to_initiator(const Conversation& conv, Message& m);
  void fill_sent_message(const Connection& caller, const std::optional<Agent>& speaker, const Conversation& conv,
                         const SendInput& in, Message& m);
  void store_sent_message(const Conversation& conv, Message& m);
  void record_submission(const Connection& caller, const std::string& submission_id, const std::string& fingerprint,
                         const Message& m);
  // conversations_store.cpp
  std::optional<Conversation> conversation_by_inbox(const std::string& inbox_id);
  // Stores a new open conversation (fresh conversation and inbox ids, created now) from c's parties.
  Conversation insert_conversation(Conversation c);
  Conversation open_conversation_for_send(const Connection& caller, const std::optional<Agent>& speaker,
                                          const Agent& target);
  void expire_conversation(const std::string& conversation_id);
  void sweep_before_new_conversation(const std::string& account_id);
  bool has_pending(const std::string& conversation_id);
  void make_room_in_inbox(Conversation& c);
  void check_rate(const Conversation& c);
  std::string count_in_rate_window(const Conversation& c);  // the window after one more accepted message
  bool is_party(const Connection& caller, const Conversation& c, const std::optional<Agent>& speaker);
  // attachments_store.cpp
  void set_attachment_state(const std::string& attachment_id, AttachmentState state, const std::string& reason);
  void revoke_attachments_of(const std::string& connection_id);
  void detach_attachments_of_agent(const std::string& agent_id);

  void notify_replicas();

  Limits limits_;
  std::string replica_id_;
  std::string url_;
  std::filesystem::path path_;
  std::unique_ptr<db::Database> db_;
  std::unordered_map<const char*, std::unique_ptr<db::Statement>> stmts_;
  bool transaction_open() const;
  bool in_batch_ = false;
  std::uint64_t batch_ = 0;  // the open batch's number, or the last one's
  bool wal_sync_deferred_ = false;
  std::int64_t durable_seq_ = kAnySeq;
  std::int64_t committed_seq_ = 0;
  std::int64_t changes_at_begin_ = 0;
  int savepoint_depth_ = 0;
  StoreEvents events_;          // this batch, committed ones
  StoreEvents request_events_;  // current request, merged into events_ when its savepoint is released
};

// RAII reset for a cached statement.
class Q {
 public:
  Q(Store& store, const char* sql) : s_(store.stmt(sql)) {}
  ~Q() { s_.reset(); }
  Q(const Q&) = delete;
  Q& operator=(const Q&) = delete;
  db::Statement* operator->() { return &s_; }
  db::Statement& operator*() { return s_; }

 private:
  db::Statement& s_;
};

}  // namespace agentworks::server
