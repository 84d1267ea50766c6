#include "store/schema.hpp"

#include <string>

namespace agentworks::server {
namespace {

void add_column_if_missing(db::Database& db, const std::string& table, const std::string& column, const std::string& type) {
  bool present = false;
  {
    const auto s = db.prepare("SELECT 1 FROM pragma_table_info('" + table + "') WHERE name = '" + column + "'");
    present = s->step();
  }
  if (!present) db.exec("ALTER TABLE " + table + " ADD COLUMN " + column + " " + type);
}

}  // namespace

void prepare_sqlite_schema(db::Database& db) {
  db.exec(R"sql(
CREATE TABLE IF NOT EXISTS accounts(
  account_id TEXT PRIMARY KEY, name TEXT NOT NULL, name_fold TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS connections(
  connection_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, kind TEXT NOT NULL, agent_id TEXT, parent_id TEXT,
  label TEXT NOT NULL DEFAULT '', token_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS connections_parent ON connections(parent_id);
CREATE INDEX IF NOT EXISTS connections_account ON connections(account_id);
CREATE TABLE IF NOT EXISTS agents(
  agent_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, name_fold TEXT NOT NULL,
  purpose TEXT NOT NULL, provider TEXT NOT NULL, created_at INTEGER NOT NULL, removed INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS agents_live_name ON agents(account_id, name_fold) WHERE removed = 0;
CREATE TABLE IF NOT EXISTS agent_allow(
  agent_id TEXT NOT NULL, connection_id TEXT NOT NULL, PRIMARY KEY(agent_id, connection_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conversations(
  conversation_id TEXT PRIMARY KEY, inbox_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
  initiator_conn TEXT NOT NULL, initiator_agent_id TEXT, target_agent_id TEXT NOT NULL,
  created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'open',
  expired_at INTEGER, next_inbox_seq INTEGER NOT NULL DEFAULT 1, message_count INTEGER NOT NULL DEFAULT 0,
  rate_window TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS conversations_target ON conversations(account_id, target_agent_id, state);
DROP INDEX IF EXISTS conversations_activity;
CREATE TABLE IF NOT EXISTS messages(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL, inbox_id TEXT NOT NULL, inbox_seq INTEGER NOT NULL, direction TEXT NOT NULL,
  sender_conn TEXT NOT NULL, sender_agent_id TEXT, sender_agent_name TEXT,
  recipient_agent_id TEXT, recipient_agent_name TEXT, recipient_conn TEXT NOT NULL,
  body TEXT NOT NULL, created_at INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'stored',
  admitted_at INTEGER, processed_at INTEGER, via TEXT);
CREATE INDEX IF NOT EXISTS messages_mailbox ON messages(recipient_agent_id, seq);
CREATE INDEX IF NOT EXISTS messages_inbox ON messages(conversation_id, inbox_seq);
DROP TABLE IF EXISTS rate_events;
CREATE TABLE IF NOT EXISTS submissions(
  account_id TEXT NOT NULL, submission_id TEXT NOT NULL, fingerprint TEXT NOT NULL, message_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL, inbox_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY(account_id, submission_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS submissions_age ON submissions(created_at);
CREATE TABLE IF NOT EXISTS attachments(
  attachment_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, agent_id TEXT NOT NULL, agent_name TEXT NOT NULL,
  purpose TEXT NOT NULL, provider TEXT NOT NULL, native_session_id TEXT NOT NULL, state TEXT NOT NULL,
  created_by TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS attachments_agent ON attachments(agent_id, state);
CREATE INDEX IF NOT EXISTS attachments_creator ON attachments(created_by, state);
CREATE TABLE IF NOT EXISTS crews(
  crew_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, name_fold TEXT NOT NULL,
  dir TEXT NOT NULL, declaration TEXT NOT NULL, created_at INTEGER NOT NULL, reloaded_at INTEGER NOT NULL,
  last_sweep_at INTEGER NOT NULL DEFAULT 0, removed INTEGER NOT NULL DEFAULT 0,
  allowance TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX IF NOT EXISTS crews_live_name ON crews(account_id, name_fold) WHERE removed = 0;
CREATE TABLE IF NOT EXISTS calls(
  call_id TEXT PRIMARY KEY, crew_id TEXT NOT NULL, caller_account TEXT NOT NULL, caller_conn TEXT NOT NULL,
  function TEXT NOT NULL, arguments TEXT NOT NULL, submission_id TEXT, fingerprint TEXT NOT NULL,
  status TEXT NOT NULL, progress TEXT NOT NULL DEFAULT '', answer TEXT, result TEXT, result_file TEXT,
  error_code TEXT, error_message TEXT, token_hash TEXT NOT NULL, correction INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
  next_message INTEGER NOT NULL DEFAULT 0, dropped_messages INTEGER NOT NULL DEFAULT 0,
  next_event INTEGER NOT NULL DEFAULT 0, files_expired INTEGER NOT NULL DEFAULT 0,
  agent_cli TEXT, agent_session TEXT, agent_version TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS calls_submission ON calls(caller_account, crew_id, submission_id)
  WHERE submission_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_crew_status ON calls(crew_id, status);
CREATE INDEX IF NOT EXISTS calls_status ON calls(status);
CREATE INDEX IF NOT EXISTS calls_caller_account ON calls(caller_account);
CREATE INDEX IF NOT EXISTS calls_caller_conn ON calls(caller_conn);
CREATE TABLE IF NOT EXISTS call_messages(
  call_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY(call_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS call_events(
  call_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, detail TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY(call_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS call_inputs(
  request_id TEXT PRIMARY KEY, call_id TEXT NOT NULL, question TEXT NOT NULL, answer TEXT,
  asked_at INTEGER NOT NULL, answered_at INTEGER, schema TEXT);
CREATE INDEX IF NOT EXISTS call_inputs_call ON call_inputs(call_id);
)sql");
  // Columns added since the first data directories; an older file gains them here.
  add_column_if_missing(db, "conversations", "rate_window", "TEXT NOT NULL DEFAULT ''");  // per-minute sends (R-M10)
  for (const char* column : {"agent_cli", "agent_session", "agent_version", "runner"})  // agent runners, replicas
    add_column_if_missing(db, "calls", column, "TEXT");
  add_column_if_missing(db, "calls", "lease_expires_at", "INTEGER");             // replicas
  add_column_if_missing(db, "call_inputs", "schema", "TEXT");                    // an answer's schema
  add_column_if_missing(db, "calls", "cancel_requested_at", "INTEGER");          // cancel (R-D3)
  add_column_if_missing(db, "calls", "cancel_requested_by", "TEXT");
  add_column_if_missing(db, "call_inputs", "withdrawn", "INTEGER NOT NULL DEFAULT 0");
  // Delegation (R-D1, R-D2): the agent that made a call, the agent its notices go to, and the notices themselves.
  add_column_if_missing(db, "calls", "caller_agent_id", "TEXT");
  add_column_if_missing(db, "calls", "notify_agent_id", "TEXT");
  add_column_if_missing(db, "calls", "parent_call_id", "TEXT");  // calls from executions (R-D4)
  add_column_if_missing(db, "calls", "depth", "INTEGER NOT NULL DEFAULT 1");
  db.exec("CREATE INDEX IF NOT EXISTS calls_parent ON calls(parent_call_id) WHERE parent_call_id IS NOT NULL");
  add_column_if_missing(db, "messages", "kind", "TEXT");
  add_column_if_missing(db, "messages", "call_id", "TEXT");
  add_column_if_missing(db, "messages", "call_status", "TEXT");
  add_column_if_missing(db, "messages", "reply_state", "TEXT");  // answered or declined (R-X2)
  add_column_if_missing(db, "agents", "communication", "TEXT");  // NULL: explicit (R-X1)
  db.exec("CREATE TABLE IF NOT EXISTS agent_grants(account_id TEXT NOT NULL, name_fold TEXT NOT NULL,"
          " functions TEXT NOT NULL, granted_at INTEGER NOT NULL, PRIMARY KEY(account_id, name_fold)) WITHOUT ROWID");
  add_column_if_missing(db, "crews", "allowance", "TEXT NOT NULL DEFAULT ''");  // '' reads as the default
  add_column_if_missing(db, "calls", "sent_answer", "TEXT");  // an explicit agent function's answer (R-X7)
  add_column_if_missing(db, "calls", "reply_state", "TEXT");
  // The messages a reply may still answer (R-X2, R-X3): marking them replied visits only those.
  db.exec("CREATE INDEX IF NOT EXISTS messages_unanswered ON messages(conversation_id, inbox_seq)"
          " WHERE kind IS NULL AND (reply_state IS NULL OR reply_state IN ('no_reply', 'unanswered'))");
  add_column_if_missing(db, "agents", "nudge", "TEXT");  // NULL: on; 'off' (R-X3)
  // Durable wakeups (R-W1..R-W5) and the person's hold on them.
  db.exec(R"sql(
CREATE TABLE IF NOT EXISTS wakeups(
  wakeup_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, agent_id TEXT NOT NULL, note TEXT NOT NULL,
  due_at INTEGER NOT NULL, state TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  message_id TEXT, fired_at INTEGER, scheduled_by TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS wakeups_due ON wakeups(due_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS wakeups_agent ON wakeups(agent_id, state, updated_at);
CREATE INDEX IF NOT EXISTS wakeups_message ON wakeups(message_id) WHERE message_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS wakeup_pauses(account_id TEXT PRIMARY KEY, paused_at INTEGER NOT NULL) WITHOUT ROWID;
)sql");
  // Conversations with a Crew's own agent (R-K1..R-K3): its hidden agent row, the person's messaging switch, and
  // each conversation's continuing session and turn.
  add_column_if_missing(db, "agents", "crew_id", "TEXT");
  add_column_if_missing(db, "crews", "messaging", "TEXT");  // NULL: the file's value; 'on' / 'off'
  db.exec(R"sql(
CREATE TABLE IF NOT EXISTS crew_sessions(
  conversation_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, crew_id TEXT NOT NULL, runner TEXT NOT NULL,
  session_id TEXT, turn_state TEXT NOT NULL, turn_token_hash TEXT, turn_replica TEXT, turn_lease_expires_at INTEGER,
  seen_seq INTEGER NOT NULL DEFAULT 0, turn_from_seq INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0,
  spoke INTEGER NOT NULL DEFAULT 0, turn_started_at INTEGER, last_turn_at INTEGER, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS crew_sessions_crew ON crew_sessions(crew_id, turn_state);
)sql");
  // A Crew agent's wakeups belong to one conversation (R-K2, R-W1); an agent's inboxes are found by receiver,
  // whichever account started them (another account talks to a Crew's agent).
  add_column_if_missing(db, "wakeups", "conversation_id", "TEXT");
  add_column_if_missing(db, "calls", "notify_conversation_id", "TEXT");
  db.exec("CREATE INDEX IF NOT EXISTS conversations_receiver ON conversations(target_agent_id)");
  // Crews served from their owner's computer (R-R1..R-R4): the serving computer, its runner's connection and when
  // it was last seen; a served call's runner ('' until claimed) and the declaration it was admitted under.
  for (const char* column : {"runner_host", "runner_conn"}) add_column_if_missing(db, "crews", column, "TEXT");
  for (const char* column : {"runner_since", "runner_seen_at"}) add_column_if_missing(db, "crews", column, "INTEGER");
  for (const char* column : {"served_by", "declaration_hash"}) add_column_if_missing(db, "calls", column, "TEXT");
  db.exec("CREATE INDEX IF NOT EXISTS calls_unclaimed ON calls(crew_id) WHERE served_by = ''");
  // R-R4: a served call's files, uploaded by its runner (base64 chunks: the same text column on both stores).
  db.exec(R"sql(
CREATE TABLE IF NOT EXISTS call_files(
  call_id TEXT NOT NULL, name TEXT NOT NULL, text INTEGER NOT NULL, size INTEGER NOT NULL, stored INTEGER NOT NULL,
  modified INTEGER NOT NULL, received INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(call_id, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS call_file_chunks(
  call_id TEXT NOT NULL, name TEXT NOT NULL, start_at INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY(call_id, name, start_at)) WITHOUT ROWID;
)sql");
}

}  // namespace agentworks::server
