// The PostgreSQL schema: the same tables as schema_sqlite.cpp with PostgreSQL's types. Every integer is
// BIGINT (times are milliseconds); the tables whose listings break ties by SQLite's implicit rowid get an
// explicit `rowid` column, so the store's statements read the same on both engines.
#include <string>

#include "agentworks/error.hpp"
#include "store/database/postgres_database.hpp"
#include "store/schema.hpp"

namespace agentworks::server {
namespace {

// Migration N brings version N-1 to N. Never edit a released one: add the next.
constexpr const char* kMigrations[] = {
    // 1: the schema of the first PostgreSQL release
    R"sql(
CREATE TABLE accounts(
  account_id TEXT PRIMARY KEY, name TEXT NOT NULL, name_fold TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);
CREATE TABLE connections(
  rowid BIGSERIAL, connection_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, kind TEXT NOT NULL, agent_id TEXT,
  parent_id TEXT, label TEXT NOT NULL DEFAULT '', token_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,
  revoked BIGINT NOT NULL DEFAULT 0);
CREATE INDEX connections_parent ON connections(parent_id);
CREATE INDEX connections_account ON connections(account_id);
CREATE INDEX connections_agent ON connections(agent_id);
CREATE TABLE agents(
  agent_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, name_fold TEXT NOT NULL,
  purpose TEXT NOT NULL, provider TEXT NOT NULL, created_at BIGINT NOT NULL, removed BIGINT NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX agents_live_name ON agents(account_id, name_fold) WHERE removed = 0;
CREATE TABLE agent_allow(
  agent_id TEXT NOT NULL, connection_id TEXT NOT NULL, PRIMARY KEY(agent_id, connection_id));
CREATE TABLE conversations(
  rowid BIGSERIAL, conversation_id TEXT PRIMARY KEY, inbox_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
  initiator_conn TEXT NOT NULL, initiator_agent_id TEXT, target_agent_id TEXT NOT NULL,
  created_at BIGINT NOT NULL, last_activity BIGINT NOT NULL, state TEXT NOT NULL DEFAULT 'open',
  expired_at BIGINT, next_inbox_seq BIGINT NOT NULL DEFAULT 1, message_count BIGINT NOT NULL DEFAULT 0,
  rate_window TEXT NOT NULL DEFAULT '');
CREATE INDEX conversations_target ON conversations(account_id, target_agent_id, state);
CREATE TABLE messages(
  seq BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL, inbox_id TEXT NOT NULL, inbox_seq BIGINT NOT NULL, direction TEXT NOT NULL,
  sender_conn TEXT NOT NULL, sender_agent_id TEXT, sender_agent_name TEXT,
  recipient_agent_id TEXT, recipient_agent_name TEXT, recipient_conn TEXT NOT NULL,
  body TEXT NOT NULL, created_at BIGINT NOT NULL, state TEXT NOT NULL DEFAULT 'stored',
  admitted_at BIGINT, processed_at BIGINT, via TEXT);
CREATE INDEX messages_mailbox ON messages(recipient_agent_id, seq);
CREATE INDEX messages_inbox ON messages(conversation_id, inbox_seq);
CREATE TABLE submissions(
  account_id TEXT NOT NULL, submission_id TEXT NOT NULL, fingerprint TEXT NOT NULL, message_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL, inbox_id TEXT NOT NULL, created_at BIGINT NOT NULL,
  PRIMARY KEY(account_id, submission_id));
CREATE INDEX submissions_age ON submissions(created_at);
CREATE TABLE attachments(
  rowid BIGSERIAL, attachment_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  agent_name TEXT NOT NULL, purpose TEXT NOT NULL, provider TEXT NOT NULL, native_session_id TEXT NOT NULL,
  state TEXT NOT NULL, created_by TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX attachments_agent ON attachments(agent_id, state);
CREATE INDEX attachments_creator ON attachments(created_by, state);
CREATE TABLE crews(
  crew_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, name_fold TEXT NOT NULL,
  dir TEXT NOT NULL, declaration TEXT NOT NULL, created_at BIGINT NOT NULL, reloaded_at BIGINT NOT NULL,
  last_sweep_at BIGINT NOT NULL DEFAULT 0, removed BIGINT NOT NULL DEFAULT 0,
  allowance TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX crews_live_name ON crews(account_id, name_fold) WHERE removed = 0;
CREATE TABLE calls(
  call_id TEXT PRIMARY KEY, crew_id TEXT NOT NULL, caller_account TEXT NOT NULL, caller_conn TEXT NOT NULL,
  function TEXT NOT NULL, arguments TEXT NOT NULL, submission_id TEXT, fingerprint TEXT NOT NULL,
  status TEXT NOT NULL, progress TEXT NOT NULL DEFAULT '', answer TEXT, result TEXT, result_file TEXT,
  error_code TEXT, error_message TEXT, token_hash TEXT NOT NULL, correction BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, finished_at BIGINT,
  next_message BIGINT NOT NULL DEFAULT 0, dropped_messages BIGINT NOT NULL DEFAULT 0,
  next_event BIGINT NOT NULL DEFAULT 0, files_expired BIGINT NOT NULL DEFAULT 0,
  agent_cli TEXT, agent_session TEXT, agent_version TEXT,
  runner TEXT, lease_expires_at BIGINT);
CREATE UNIQUE INDEX calls_submission ON calls(caller_account, crew_id, submission_id)
  WHERE submission_id IS NOT NULL;
CREATE INDEX calls_crew_status ON calls(crew_id, status);
CREATE INDEX calls_status ON calls(status);
CREATE TABLE call_messages(
  call_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, created_at BIGINT NOT NULL,
  PRIMARY KEY(call_id, seq));
CREATE TABLE call_events(
  call_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, detail TEXT NOT NULL, created_at BIGINT NOT NULL,
  PRIMARY KEY(call_id, seq));
CREATE TABLE call_inputs(
  request_id TEXT PRIMARY KEY, call_id TEXT NOT NULL, question TEXT NOT NULL, answer TEXT,
  asked_at BIGINT NOT NULL, answered_at BIGINT, schema TEXT);
CREATE INDEX call_inputs_call ON call_inputs(call_id);
)sql",
    // 2: the recent-calls list (GET /v1/calls) orders calls by a `rowid`, as SQLite's implicit one does. The
    // calls already stored are numbered by age; a new call takes the sequence's next value.
    R"sql(
CREATE SEQUENCE calls_rowid_seq;
ALTER TABLE calls ADD COLUMN rowid BIGINT;
UPDATE calls SET rowid = o.n
  FROM (SELECT call_id, row_number() OVER (ORDER BY created_at, call_id) AS n FROM calls) o
  WHERE o.call_id = calls.call_id;
SELECT setval('calls_rowid_seq', COALESCE((SELECT max(rowid) FROM calls), 0) + 1, false);
ALTER TABLE calls ALTER COLUMN rowid SET DEFAULT nextval('calls_rowid_seq'), ALTER COLUMN rowid SET NOT NULL;
ALTER SEQUENCE calls_rowid_seq OWNED BY calls.rowid;
CREATE INDEX calls_caller_account ON calls(caller_account, rowid);
CREATE INDEX calls_caller_conn ON calls(caller_conn, rowid);
CREATE INDEX calls_crew ON calls(crew_id, rowid);
)sql",
    // 3: delegation. Cancel (R-D3): when and by whom a call was asked to end, and the questions that withdrew
    // with it. The person's grants of functions to agents (R-D1), the agent that made a call and the one its
    // notices go to, and the notices as messages of their own kind (R-D2). Calls made by executions (R-D4).
    R"sql(
ALTER TABLE calls ADD COLUMN cancel_requested_at BIGINT, ADD COLUMN cancel_requested_by TEXT,
  ADD COLUMN caller_agent_id TEXT, ADD COLUMN notify_agent_id TEXT, ADD COLUMN parent_call_id TEXT,
  ADD COLUMN depth BIGINT NOT NULL DEFAULT 1;
CREATE INDEX calls_parent ON calls(parent_call_id) WHERE parent_call_id IS NOT NULL;
ALTER TABLE call_inputs ADD COLUMN withdrawn BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN kind TEXT, ADD COLUMN call_id TEXT, ADD COLUMN call_status TEXT;
CREATE TABLE agent_grants(account_id TEXT NOT NULL, name_fold TEXT NOT NULL, functions TEXT NOT NULL,
  granted_at BIGINT NOT NULL, PRIMARY KEY(account_id, name_fold));
)sql",
    // 4: whether a message's recipient answered it or declined on purpose (R-X2); how an agent talks (R-X1).
    R"sql(
ALTER TABLE messages ADD COLUMN reply_state TEXT;
ALTER TABLE agents ADD COLUMN communication TEXT;
)sql",
    // 5: durable wakeups (R-W1..R-W5) and the person's hold on them; what an explicit agent function sent (R-X7); the
    // messages a reply may still answer (R-X2, R-X3), so marking them replied visits only those; whether an agent's
    // silent turns are nudged (R-X3).
    R"sql(
CREATE TABLE wakeups(
  wakeup_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, agent_id TEXT NOT NULL, note TEXT NOT NULL,
  due_at BIGINT NOT NULL, state TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
  message_id TEXT, fired_at BIGINT, scheduled_by TEXT NOT NULL);
CREATE INDEX wakeups_due ON wakeups(due_at) WHERE state = 'pending';
CREATE INDEX wakeups_agent ON wakeups(agent_id, state, updated_at);
CREATE INDEX wakeups_message ON wakeups(message_id) WHERE message_id IS NOT NULL;
CREATE TABLE wakeup_pauses(account_id TEXT PRIMARY KEY, paused_at BIGINT NOT NULL);
ALTER TABLE calls ADD COLUMN sent_answer TEXT, ADD COLUMN reply_state TEXT;
CREATE INDEX messages_unanswered ON messages(conversation_id, inbox_seq)
  WHERE kind IS NULL AND (reply_state IS NULL OR reply_state IN ('no_reply', 'unanswered'));
ALTER TABLE agents ADD COLUMN nudge TEXT;
)sql",
    // 6: conversations with a Crew's own agent (R-K1..R-K3): its hidden agent row, the person's messaging switch,
    // and each conversation's continuing session and turn.
    R"sql(
ALTER TABLE agents ADD COLUMN crew_id TEXT;
ALTER TABLE crews ADD COLUMN messaging TEXT;
CREATE TABLE crew_sessions(
  conversation_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, crew_id TEXT NOT NULL, runner TEXT NOT NULL,
  session_id TEXT, turn_state TEXT NOT NULL, turn_token_hash TEXT, turn_replica TEXT, turn_lease_expires_at BIGINT,
  seen_seq BIGINT NOT NULL DEFAULT 0, turn_from_seq BIGINT NOT NULL DEFAULT 0, turns BIGINT NOT NULL DEFAULT 0,
  spoke BIGINT NOT NULL DEFAULT 0, turn_started_at BIGINT, last_turn_at BIGINT, created_at BIGINT NOT NULL);
CREATE INDEX crew_sessions_crew ON crew_sessions(crew_id, turn_state);
)sql",
    // 7: a Crew agent's wakeups and the notices of its calls belong to one conversation (R-K2, R-W1, R-D2); an
    // agent's inboxes are found by receiver, whichever account started them (another account talks to a Crew's
    // agent).
    R"sql(
ALTER TABLE wakeups ADD COLUMN conversation_id TEXT;
ALTER TABLE calls ADD COLUMN notify_conversation_id TEXT;
CREATE INDEX conversations_receiver ON conversations(target_agent_id, rowid);
)sql",
    // 8: Crews served from their owner's computer (R-R1..R-R4): the serving computer, its runner's connection and
    // when it was last seen; a served call's runner ('' until claimed), the declaration it was admitted under, and
    // the files its runner uploaded (base64 chunks).
    R"sql(
ALTER TABLE crews ADD COLUMN runner_host TEXT, ADD COLUMN runner_conn TEXT, ADD COLUMN runner_since BIGINT,
  ADD COLUMN runner_seen_at BIGINT;
ALTER TABLE calls ADD COLUMN served_by TEXT, ADD COLUMN declaration_hash TEXT;
CREATE INDEX calls_unclaimed ON calls(crew_id, rowid) WHERE served_by = '';
CREATE TABLE call_files(
  call_id TEXT NOT NULL, name TEXT NOT NULL, text BIGINT NOT NULL, size BIGINT NOT NULL, stored BIGINT NOT NULL,
  modified BIGINT NOT NULL, received BIGINT NOT NULL DEFAULT 0, PRIMARY KEY(call_id, name));
CREATE TABLE call_file_chunks(
  call_id TEXT NOT NULL, name TEXT NOT NULL, start_at BIGINT NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY(call_id, name, start_at));
)sql",
};
constexpr int kMigrationCount = static_cast<int>(sizeof kMigrations / sizeof kMigrations[0]);
static_assert(kMigrationCount == kPostgresSchemaVersion, "one migration per schema version");

// The version recorded in the database, 0 when it holds no agentworks schema.
int recorded_version(db::Database& db) {
  const auto has = db.prepare("SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = "
                              "'agentworks_schema'");
  if (!has->step()) return 0;
  const auto v = db.prepare("SELECT version FROM agentworks_schema");
  return v->step() ? static_cast<int>(v->int64(0)) : 0;
}

[[noreturn]] void newer_than_binary(db::Database& db, int found) {
  throw Error(ErrorCode::usage, "the database at " + db.describe() + " has schema version " + std::to_string(found) +
                                    ", newer than this agentworks-server (" + std::to_string(kPostgresSchemaVersion) +
                                    "); upgrade agentworks-server on this computer");
}

}  // namespace

int migrate_postgresql_schema(db::Database& db) {
  db.begin_write();  // one migrate at a time, and no replica writes half-way through it
  try {
    const int found = recorded_version(db);
    if (found > kPostgresSchemaVersion) newer_than_binary(db, found);
    if (found == 0) db.exec("CREATE TABLE IF NOT EXISTS agentworks_schema(version BIGINT NOT NULL)");
    for (int v = found + 1; v <= kPostgresSchemaVersion; ++v) db.exec(kMigrations[v - 1]);
    db.exec("DELETE FROM agentworks_schema");
    db.exec("INSERT INTO agentworks_schema(version) VALUES(" + std::to_string(kPostgresSchemaVersion) + ")");
    db.exec("COMMIT");
    return found;
  } catch (...) {
    if (db.transaction_open()) db.exec("ROLLBACK");
    throw;
  }
}

void check_postgresql_schema(db::Database& db) {
  const int found = recorded_version(db);
  if (found == kPostgresSchemaVersion) return;
  if (found > kPostgresSchemaVersion) newer_than_binary(db, found);
  throw Error(ErrorCode::usage, "the database at " + db.describe() +
                                    (found == 0 ? std::string(" holds no agentworks schema")
                                                : " has schema version " + std::to_string(found)) +
                                    "; run: agentworks-server migrate --store URL");
}

}  // namespace agentworks::server
