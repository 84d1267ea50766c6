#include "store/schema.hpp"

#include "agentworks/sqlite.hpp"

namespace agentworks::server {

void create_schema(sql::Db& db) {
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
)sql");
  // Data directories from before rate_window existed (the column keeps per-minute send counts, R-M10).
  bool has_rate_window = false;
  {
    sql::Stmt s(db, "SELECT 1 FROM pragma_table_info('conversations') WHERE name = 'rate_window'");
    has_rate_window = s.step();
  }
  if (!has_rate_window) db.exec("ALTER TABLE conversations ADD COLUMN rate_window TEXT NOT NULL DEFAULT ''");
}

}  // namespace agentworks::server
