#include "state/journal.hpp"

#include <algorithm>
#include <optional>

#include "agentworks/validation.hpp"

namespace agentworks::bridge {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS attachments(
  attachment_id TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  purpose TEXT NOT NULL,
  server_url TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  state TEXT NOT NULL,
  guidance_at INTEGER,
  created_at INTEGER NOT NULL,
  turn_seq INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS attachments_by_session ON attachments(provider, session_id);
CREATE TABLE IF NOT EXISTS watermarks(
  server_url TEXT NOT NULL,
  agent_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY(server_url, agent_key));
CREATE TABLE IF NOT EXISTS messages(
  message_id TEXT PRIMARY KEY,
  attachment_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  body TEXT,
  size INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
  received_at INTEGER NOT NULL,
  offered_at INTEGER,
  admitted_at INTEGER,
  processed_at INTEGER);
CREATE INDEX IF NOT EXISTS messages_by_attachment ON messages(attachment_id, state, seq);
CREATE TABLE IF NOT EXISTS outbox(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  submission_id TEXT NOT NULL UNIQUE,
  attachment_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  result TEXT,
  created_at INTEGER NOT NULL,
  done_at INTEGER);
CREATE TABLE IF NOT EXISTS counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
-- The bytes of the cached bodies, kept by the database itself on every change of a message's body (R-B11's quota
-- is read per received batch: a sum over the table there made a catch-up quadratic in what is cached).
-- How many messages each attachment has in each state, kept the same way: `status` reads a few rows per attachment
-- instead of counting its messages (a client polling it during a catch-up would otherwise slow it more the more is
-- cached).
CREATE TABLE IF NOT EXISTS message_counts(attachment_id TEXT NOT NULL, state TEXT NOT NULL, n INTEGER NOT NULL,
                                          PRIMARY KEY(attachment_id, state));
CREATE TRIGGER IF NOT EXISTS message_counts_on_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_counts(attachment_id, state, n) VALUES(NEW.attachment_id, NEW.state, 1)
    ON CONFLICT(attachment_id, state) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS message_counts_on_delete AFTER DELETE ON messages BEGIN
  UPDATE message_counts SET n = n - 1 WHERE attachment_id = OLD.attachment_id AND state = OLD.state; END;
CREATE TRIGGER IF NOT EXISTS message_counts_on_update AFTER UPDATE OF attachment_id, state ON messages
  WHEN NEW.attachment_id IS NOT OLD.attachment_id OR NEW.state IS NOT OLD.state BEGIN
  UPDATE message_counts SET n = n - 1 WHERE attachment_id = OLD.attachment_id AND state = OLD.state;
  INSERT INTO message_counts(attachment_id, state, n) VALUES(NEW.attachment_id, NEW.state, 1)
    ON CONFLICT(attachment_id, state) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS cached_bytes_on_insert AFTER INSERT ON messages WHEN NEW.body IS NOT NULL BEGIN
  UPDATE counters SET value = value + NEW.size WHERE name = 'cached_body_bytes'; END;
CREATE TRIGGER IF NOT EXISTS cached_bytes_on_delete AFTER DELETE ON messages WHEN OLD.body IS NOT NULL BEGIN
  UPDATE counters SET value = value - OLD.size WHERE name = 'cached_body_bytes'; END;
CREATE TRIGGER IF NOT EXISTS cached_bytes_on_update AFTER UPDATE OF body, size ON messages BEGIN
  UPDATE counters SET value = value + (CASE WHEN NEW.body IS NOT NULL THEN NEW.size ELSE 0 END)
                                    - (CASE WHEN OLD.body IS NOT NULL THEN OLD.size ELSE 0 END)
   WHERE name = 'cached_body_bytes'; END;
CREATE TABLE IF NOT EXISTS native_settings(attachment_id TEXT PRIMARY KEY, settings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS name_losses(attachment_id TEXT PRIMARY KEY, taken_by TEXT NOT NULL, taken_at INTEGER NOT NULL,
                                       told INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS attachment_projects(attachment_id TEXT PRIMARY KEY, cwd TEXT NOT NULL);
)sql";

// Schema versions (PRAGMA user_version): 1 the tables above; 2 adds the provider process key of an attachment;
// 3 adds native_settings (created by kSchema, nothing to migrate); 4 adds messages.emit, whether an offer's
// hand-out is known to have completed (NULL for offers made before: taken as delivered).
// name_losses and attachment_projects (created by kSchema, nothing to migrate; an older bridge ignores them) need no new version.
// 5 adds messages.inbox_id, the conversation of an agent's message (what a reply without an address answers), and
// messages.settled_at, when the chat replied in that conversation or declined the message (R-X2, R-X4).
// 6 adds attachments.turn_seq (the chat's turns as the bridge counts them), messages.offer_turn (the turn that sees
// an offer) and messages.nudged_at (when a silent turn was asked about it) (R-X3).
constexpr std::int64_t kSchemaVersion = 6;

int delivery_rank(MessageState state) {
  switch (state) {
    case MessageState::received:
    case MessageState::withheld:
      return 0;
    case MessageState::offered:
      return 1;
    case MessageState::admitted:
      return 2;
    case MessageState::processed:
      return 3;
  }
  return -1;
}

// A state column holding a value this bridge does not know: the journal is corrupt, not in some other state.
[[noreturn]] void unknown_state(const char* table, const std::string& value) {
  constexpr int kSqliteCorrupt = 11;  // SQLITE_CORRUPT: fatal(), so the bridge stops as for any corruption
  throw sql::SqliteError(kSqliteCorrupt, std::string("journal corrupt: unknown ") + table + " state \"" + value + "\"");
}

AttachmentState attachment_state_column(const sql::Stmt& s, int column) {
  const std::string text = s.text(column);
  if (auto state = parse_attachment_state(text)) return *state;
  unknown_state("attachment", text);
}

MessageState message_state_column(const sql::Stmt& s, int column) {
  const std::string text = s.text(column);
  if (auto state = parse_message_state(text)) return *state;
  unknown_state("message", text);
}

OutboxState outbox_state_column(const sql::Stmt& s, int column) {
  const std::string text = s.text(column);
  if (auto state = parse_outbox_state(text)) return *state;
  unknown_state("outbox", text);
}

AttachmentRow read_attachment(const sql::Stmt& s) {
  AttachmentRow r;
  r.attachment_id = s.text(0);
  r.provider = s.text(1);
  r.session_id = s.text(2);
  r.agent_name = s.text(3);
  r.purpose = s.text(4);
  r.server_url = s.text(5);
  r.connection_id = s.text(6);
  r.state = attachment_state_column(s, 7);
  r.guidance_at = s.opt_int64(8);
  r.created_at = s.int64(9);
  r.provider_pid = s.opt_int64(10).value_or(0);
  r.provider_start = s.opt_text(11).value_or("");
  return r;
}

constexpr const char* kAttachmentColumns =
    "attachment_id, provider, session_id, agent_name, purpose, server_url, connection_id, state, guidance_at, "
    "created_at, provider_pid, provider_start";

std::int64_t scalar(sql::Db& db, const std::string& query, const std::string& arg) {
  sql::Stmt s(db, query);
  s.bind(1, arg);
  return s.step() ? s.int64(0) : 0;
}

bool has_column(sql::Db& db, const std::string& table, const std::string& column) {
  bool found = false;
  sql::Stmt cols(db, "PRAGMA table_info(" + table + ")");
  while (cols.step()) found = found || cols.text(1) == column;
  return found;
}

// Runs `query` (with ?1 = one message id) for each id in one transaction; returns the rows changed.
// Runs `query` once per id (?1), in one transaction; `at` binds ?2 when given. Returns the rows changed.
std::int64_t for_each_id(sql::Db& db, const char* query, const std::vector<std::string>& ids,
                         std::optional<std::int64_t> at = std::nullopt) {
  std::int64_t changed = 0;
  sql::Transaction tx(db);
  sql::Stmt s(db, query);
  for (const auto& id : ids) {
    s.reset();
    s.bind(1, id);
    if (at) s.bind(2, *at);
    s.run();
    changed += db.changes();
  }
  tx.commit();
  return changed;
}

}  // namespace

Journal::Journal(const std::string& path, JournalLimits limits) : db_(path), limits_(limits) { migrate(); }

void Journal::migrate() {
  sql::Transaction tx(db_);
  db_.exec(kSchema);
  sql::Stmt v(db_, "PRAGMA user_version");
  const std::int64_t version = v.step() ? v.int64(0) : 0;
  v.reset();
  if (version > kSchemaVersion) {
    throw sql::SqliteError(1, "journal schema version " + std::to_string(version) +
                                  " is newer than this bridge knows (" + std::to_string(kSchemaVersion) +
                                  "); upgrade agentworks");
  }
  if (version < 2 && !has_column(db_, "attachments", "provider_pid")) {
    db_.exec("ALTER TABLE attachments ADD COLUMN provider_pid INTEGER; "
             "ALTER TABLE attachments ADD COLUMN provider_start TEXT;");
  }
  if (version < 4 && !has_column(db_, "messages", "emit")) db_.exec("ALTER TABLE messages ADD COLUMN emit TEXT;");
  if (version < 5 && !has_column(db_, "messages", "inbox_id")) db_.exec("ALTER TABLE messages ADD COLUMN inbox_id TEXT;");
  if (version < 5 && !has_column(db_, "messages", "settled_at"))
    db_.exec("ALTER TABLE messages ADD COLUMN settled_at INTEGER;");
  if (version < 6 && !has_column(db_, "attachments", "turn_seq"))
    db_.exec("ALTER TABLE attachments ADD COLUMN turn_seq INTEGER NOT NULL DEFAULT 0;");
  if (version < 6 && !has_column(db_, "messages", "offer_turn"))
    db_.exec("ALTER TABLE messages ADD COLUMN offer_turn INTEGER; ALTER TABLE messages ADD COLUMN nudged_at INTEGER;");
  // The counts and the cached-bytes total from the rows, once per open: exact whatever wrote the file before (an older bridge
  // without the triggers); the triggers keep it from here on.
  db_.exec("INSERT INTO counters(name, value) VALUES('cached_body_bytes', "
           "(SELECT coalesce(sum(size), 0) FROM messages WHERE body IS NOT NULL)) "
           "ON CONFLICT(name) DO UPDATE SET value = excluded.value");
  db_.exec("DELETE FROM message_counts; INSERT INTO message_counts(attachment_id, state, n) "
           "SELECT attachment_id, state, count(*) FROM messages GROUP BY attachment_id, state");
  db_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  tx.commit();
}

void Journal::upsert_attachment(const AttachmentRow& r) {
  sql::Transaction tx(db_);
  // One attachment per provider session: a re-attach of the same session replaces the old row.
  sql::Stmt del(db_, "DELETE FROM attachments WHERE provider = ?1 AND session_id = ?2 AND attachment_id != ?3");
  del.bind(1, r.provider).bind(2, r.session_id).bind(3, r.attachment_id).run();
  sql::Stmt s(db_,
              "INSERT INTO attachments(attachment_id, provider, session_id, agent_name, purpose, server_url, "
              "connection_id, state, guidance_at, created_at, provider_pid, provider_start) "
              "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12) "
              "ON CONFLICT(attachment_id) DO UPDATE SET provider=excluded.provider, session_id=excluded.session_id, "
              "agent_name=excluded.agent_name, purpose=excluded.purpose, server_url=excluded.server_url, "
              "connection_id=excluded.connection_id, state=excluded.state, provider_pid=excluded.provider_pid, "
              "provider_start=excluded.provider_start");
  s.bind(1, r.attachment_id).bind(2, r.provider).bind(3, r.session_id).bind(4, r.agent_name);
  s.bind(5, r.purpose).bind(6, r.server_url).bind(7, r.connection_id).bind(8, std::string(to_string(r.state)));
  s.bind(9, r.guidance_at).bind(10, r.created_at);
  if (r.provider_pid > 0) {
    s.bind(11, r.provider_pid).bind(12, r.provider_start);
  } else {
    s.bind_null(11).bind_null(12);
  }
  s.run();
  tx.commit();
}

std::optional<AttachmentRow> Journal::find_attachment(const std::string& provider, const std::string& session_id) {
  sql::Stmt s(db_, std::string("SELECT ") + kAttachmentColumns +
                       " FROM attachments WHERE provider = ?1 AND session_id = ?2");
  s.bind(1, provider).bind(2, session_id);
  if (!s.step()) return std::nullopt;
  return read_attachment(s);
}

std::optional<AttachmentRow> Journal::attachment(const std::string& attachment_id) {
  sql::Stmt s(db_, std::string("SELECT ") + kAttachmentColumns + " FROM attachments WHERE attachment_id = ?1");
  s.bind(1, attachment_id);
  if (!s.step()) return std::nullopt;
  return read_attachment(s);
}

std::vector<AttachmentRow> Journal::attachments() {
  sql::Stmt s(db_, std::string("SELECT ") + kAttachmentColumns + " FROM attachments ORDER BY created_at, rowid");
  std::vector<AttachmentRow> out;
  while (s.step()) out.push_back(read_attachment(s));
  return out;
}

void Journal::set_attachment_state(const std::string& attachment_id, AttachmentState state) {
  sql::Stmt s(db_, "UPDATE attachments SET state = ?2 WHERE attachment_id = ?1");
  s.bind(1, attachment_id).bind(2, std::string(to_string(state))).run();
}

void Journal::set_provider_process(const std::string& attachment_id, std::int64_t pid, const std::string& start) {
  sql::Stmt s(db_, "UPDATE attachments SET provider_pid = ?2, provider_start = ?3 WHERE attachment_id = ?1");
  s.bind(1, attachment_id).bind(2, pid).bind(3, start).run();
}

std::int64_t Journal::adopt_pending(const AttachmentRow& row) {
  sql::Stmt s(db_,
              "UPDATE messages SET attachment_id = ?1 WHERE state = 'received' AND attachment_id IN "
              "(SELECT attachment_id FROM attachments WHERE attachment_id != ?1 AND server_url = ?2 "
              "AND lower(agent_name) = ?3)");
  s.bind(1, row.attachment_id).bind(2, row.server_url).bind(3, fold_name(row.agent_name)).run();
  return db_.changes();
}

void Journal::remove_attachment(const std::string& attachment_id) {
  sql::Transaction tx(db_);
  sql::Stmt m(db_, "DELETE FROM messages WHERE attachment_id = ?1");
  m.bind(1, attachment_id).run();
  sql::Stmt a(db_, "DELETE FROM attachments WHERE attachment_id = ?1");
  a.bind(1, attachment_id).run();
  sql::Stmt n(db_, "DELETE FROM native_settings WHERE attachment_id = ?1");
  n.bind(1, attachment_id).run();
  sql::Stmt l(db_, "DELETE FROM name_losses WHERE attachment_id = ?1");
  l.bind(1, attachment_id).run();
  sql::Stmt p(db_, "DELETE FROM attachment_projects WHERE attachment_id = ?1");
  p.bind(1, attachment_id).run();
  sql::Stmt c(db_, "DELETE FROM message_counts WHERE attachment_id = ?1");
  c.bind(1, attachment_id).run();
  tx.commit();
}

void Journal::set_native_settings(const std::string& attachment_id, const std::string& settings_json) {
  sql::Stmt s(db_,
              "INSERT INTO native_settings(attachment_id, settings) VALUES(?1, ?2) "
              "ON CONFLICT(attachment_id) DO UPDATE SET settings = excluded.settings");
  s.bind(1, attachment_id).bind(2, settings_json).run();
}

std::string Journal::native_settings(const std::string& attachment_id) {
  sql::Stmt s(db_, "SELECT settings FROM native_settings WHERE attachment_id = ?1");
  s.bind(1, attachment_id);
  return s.step() ? s.text(0) : std::string();
}

std::int64_t Journal::watermark(const std::string& server_url, const std::string& agent_name) {
  sql::Stmt s(db_, "SELECT seq FROM watermarks WHERE server_url = ?1 AND agent_key = ?2");
  s.bind(1, server_url).bind(2, fold_name(agent_name));
  return s.step() ? s.int64(0) : 0;
}

ReceiveResult Journal::record_received(const AttachmentRow& att, const IncomingMessage& msg, std::int64_t now) {
  return record_received_batch(att, {msg}, now).front();
}

std::vector<ReceiveResult> Journal::record_received_batch(const AttachmentRow& att,
                                                          const std::vector<IncomingMessage>& batch,
                                                          std::int64_t now) {
  // One transaction (one fsync) per batch: catch-up of a backlog costs one commit per received chunk, not per
  // message. Message rows and the watermark still commit together (invariant 2).
  std::vector<ReceiveResult> results;
  results.reserve(batch.size());
  sql::Transaction tx(db_);
  const std::string key = fold_name(att.agent_name);
  sql::Stmt w(db_, "SELECT seq FROM watermarks WHERE server_url = ?1 AND agent_key = ?2");
  w.bind(1, att.server_url).bind(2, key);
  std::int64_t mark = w.step() ? w.int64(0) : 0;
  w.reset();

  sql::Stmt up(db_,
               "INSERT INTO watermarks(server_url, agent_key, seq) VALUES(?1, ?2, ?3) "
               "ON CONFLICT(server_url, agent_key) DO UPDATE SET seq = max(seq, excluded.seq)");
  sql::Stmt exists(db_, "SELECT 1 FROM messages WHERE message_id = ?1");
  sql::Stmt ins(db_,
                "INSERT INTO messages(message_id, attachment_id, seq, state, body, size, received_at, inbox_id) "
                "VALUES(?1, ?2, ?3, 'received', ?4, ?5, ?6, ?7)");
  // Quota inputs are read once per batch and then counted here, so a batch costs no table scans per message.
  std::optional<std::int64_t> in_session;
  std::optional<std::int64_t> total;
  std::int64_t over_quota = 0;
  bool holding = false;  // no room for an earlier message: the rest of the batch waits on the server too

  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& msg = batch[i];
    if (msg.seq <= mark) {
      results.push_back(ReceiveResult::below_watermark);
      continue;
    }
    if (holding) {
      // The watermark never passes a message that was not journaled: it is fetched again once there is room.
      results.push_back(ReceiveResult::over_quota);
      ++over_quota;
      continue;
    }
    exists.bind(1, msg.message_id);
    const bool seen = exists.step();
    exists.reset();
    if (msg.acknowledged || seen) {
      mark = msg.seq;
      results.push_back(msg.acknowledged ? ReceiveResult::acknowledged : ReceiveResult::duplicate);
      continue;
    }
    const auto size = static_cast<std::int64_t>(msg.body.size());
    if (!in_session) {
      in_session = scalar(db_, "SELECT coalesce(sum(n), 0) FROM message_counts WHERE attachment_id = ?1",
                          att.attachment_id);
    }
    if (*in_session >= limits_.max_messages_per_session) {
      // Quota pressure: metadata of messages already handed out goes, oldest first (R-B11); enough for the rest
      // of this batch at once. The watermark keeps them from being cached again (R-B12).
      const auto want = std::max<std::int64_t>(1, *in_session - limits_.max_messages_per_session + 1);
      *in_session -= reclaim(att.attachment_id, want + static_cast<std::int64_t>(batch.size() - i - 1));
    }
    if (!total) total = total_body_bytes();
    if (*in_session >= limits_.max_messages_per_session || *total + size > limits_.max_total_body_bytes) {
      holding = true;
      results.push_back(ReceiveResult::over_quota);
      ++over_quota;
      continue;
    }
    mark = msg.seq;
    ins.bind(1, msg.message_id).bind(2, att.attachment_id).bind(3, msg.seq).bind(4, msg.body);
    ins.bind(5, size).bind(6, now);
    if (msg.inbox_id.empty()) ins.bind_null(7);
    else ins.bind(7, msg.inbox_id);
    ins.run();
    ins.reset();
    ++*in_session;
    *total += size;
    results.push_back(ReceiveResult::cached);
  }
  if (over_quota > 0) {
    sql::Stmt c(db_,
                "INSERT INTO counters(name, value) VALUES('over_quota', ?1) "
                "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value");
    c.bind(1, over_quota).run();
  }
  if (mark > 0) up.bind(1, att.server_url).bind(2, key).bind(3, mark).run();
  tx.commit();
  return results;
}

std::vector<CachedMessage> Journal::pending(const std::string& attachment_id, int limit) {
  sql::Stmt s(db_,
              "SELECT message_id, seq, body FROM messages WHERE attachment_id = ?1 AND state = 'received' "
              "ORDER BY seq LIMIT ?2");
  s.bind(1, attachment_id).bind(2, limit);
  std::vector<CachedMessage> out;
  while (s.step()) out.push_back({s.text(0), s.int64(1), s.text(2)});
  return out;
}

OfferBatch Journal::offer(const std::string& attachment_id, const std::vector<std::string>& message_ids,
                          OfferSeen seen, std::int64_t now) {
  OfferBatch batch;
  sql::Transaction tx(db_);
  sql::Stmt get(db_,
                "SELECT seq, body FROM messages WHERE message_id = ?1 AND attachment_id = ?2 AND state = 'received'");
  sql::Stmt mark(db_,
                 "UPDATE messages SET state = 'offered', body = NULL, size = 0, offered_at = ?2, emit = 'pending', "
                 "offer_turn = ?3 WHERE message_id = ?1 AND state = 'received'");
  std::int64_t turn = 0;
  {
    sql::Stmt t(db_, "SELECT turn_seq FROM attachments WHERE attachment_id = ?1");
    t.bind(1, attachment_id);
    if (t.step()) turn = t.int64(0);
  }
  if (seen != OfferSeen::this_turn) ++turn;
  for (const auto& id : message_ids) {
    get.reset();
    get.bind(1, id).bind(2, attachment_id);
    if (!get.step()) continue;  // already offered by someone else, acknowledged or gone: never twice
    CachedMessage m{id, get.int64(0), get.text(1)};
    mark.reset();
    mark.bind(1, id).bind(2, now).bind(3, turn).run();
    batch.messages.push_back(std::move(m));
  }
  if (seen == OfferSeen::a_new_turn && !batch.messages.empty()) {
    sql::Stmt t(db_, "UPDATE attachments SET turn_seq = ?2 WHERE attachment_id = ?1");
    t.bind(1, attachment_id).bind(2, turn).run();
  }
  if (!batch.messages.empty()) {
    sql::Stmt g(db_, "SELECT guidance_at FROM attachments WHERE attachment_id = ?1");
    g.bind(1, attachment_id);
    if (g.step()) {
      batch.previous_guidance = g.opt_int64(0);
      batch.guidance = guidance_expired(batch.previous_guidance, now);
      if (batch.guidance) {
        sql::Stmt set(db_, "UPDATE attachments SET guidance_at = ?2 WHERE attachment_id = ?1");
        set.bind(1, attachment_id).bind(2, now).run();
      }
    }
  }
  get.reset();
  tx.commit();
  return batch;
}

std::size_t Journal::return_to_pending(const std::string& attachment_id, const std::vector<CachedMessage>& messages) {
  std::size_t n = 0;
  sql::Transaction tx(db_);
  sql::Stmt back(db_,
                 "UPDATE messages SET state = 'received', body = ?3, size = ?4, offered_at = NULL, emit = NULL "
                 "WHERE message_id = ?1 AND attachment_id = ?2 AND state = 'offered'");
  for (const auto& m : messages) {
    back.reset();
    back.bind(1, m.message_id).bind(2, attachment_id).bind(3, m.body).bind(4, static_cast<std::int64_t>(m.body.size()));
    back.run();
    n += static_cast<std::size_t>(db_.changes());
  }
  tx.commit();
  return n;
}

bool Journal::guidance_expired(std::optional<std::int64_t> given_at, std::int64_t now) const {
  return !given_at || now - *given_at >= limits_.guidance_refresh_seconds;
}

bool Journal::guidance_due(const std::string& attachment_id, std::int64_t now) {
  sql::Stmt g(db_, "SELECT guidance_at FROM attachments WHERE attachment_id = ?1");
  g.bind(1, attachment_id);
  return g.step() && guidance_expired(g.opt_int64(0), now);
}

void Journal::restore_guidance(const std::string& attachment_id, std::optional<std::int64_t> previous) {
  sql::Stmt set(db_, "UPDATE attachments SET guidance_at = ?2 WHERE attachment_id = ?1");
  set.bind(1, attachment_id).bind(2, previous).run();
}

void Journal::withhold(const std::vector<std::string>& message_ids, const std::string& reason) {
  sql::Transaction tx(db_);
  sql::Stmt s(db_, "UPDATE messages SET state = 'withheld', reason = ?2 WHERE message_id = ?1 AND state = 'received'");
  for (const auto& id : message_ids) {
    s.reset();
    s.bind(1, id).bind(2, reason).run();
  }
  tx.commit();
}

bool Journal::set_delivery(const std::string& message_id, MessageState delivery, std::int64_t now) {
  const int target = delivery_rank(delivery);
  if (target < 2) return false;
  sql::Transaction tx(db_);
  sql::Stmt get(db_, "SELECT state FROM messages WHERE message_id = ?1");
  get.bind(1, message_id);
  if (!get.step()) return false;
  if (delivery_rank(message_state_column(get, 0)) >= target) return true;  // never backwards
  // An acknowledged message is never offered again and keeps no body (R-B10).
  sql::Stmt up(db_, target == 2 ? "UPDATE messages SET state = 'admitted', body = NULL, size = 0, "
                                  "admitted_at = ?2 WHERE message_id = ?1"
                                : "UPDATE messages SET state = 'processed', body = NULL, size = 0, "
                                  "admitted_at = coalesce(admitted_at, ?2), processed_at = ?2 WHERE message_id = ?1");
  up.bind(1, message_id).bind(2, now).run();
  get.reset();
  tx.commit();
  return true;
}

std::optional<MessageState> Journal::message_state(const std::string& message_id) {
  sql::Stmt s(db_, "SELECT state FROM messages WHERE message_id = ?1");
  s.bind(1, message_id);
  if (!s.step()) return std::nullopt;
  return message_state_column(s, 0);
}

AttachmentCounts Journal::counts(const std::string& attachment_id) {
  AttachmentCounts c;
  // The counts the triggers keep (`status` costs the same however much is cached); only the offered rows, few,
  // are read for how their hand-out went.
  sql::Stmt s(db_, "SELECT state, n FROM message_counts WHERE attachment_id = ?1 AND n > 0");
  s.bind(1, attachment_id);
  while (s.step()) {
    const MessageState state = message_state_column(s, 0);
    const std::int64_t n = s.int64(1);
    c.total += n;
    if (state == MessageState::received) c.pending = n;
    if (state == MessageState::offered) {
      c.offered_not_admitted = n;
      c.possibly_lost = scalar(db_,
                               "SELECT count(*) FROM messages WHERE attachment_id = ?1 AND state = 'offered' "
                               "AND emit IN ('unsure', 'told')",
                               attachment_id);
    }
    if (state == MessageState::withheld) c.withheld = n;
    if (state == MessageState::admitted) c.admitted = n;
    if (state == MessageState::processed) c.processed = n;
  }
  return c;
}

std::vector<OpenOffer> Journal::open_offers(const std::string& attachment_id) {
  std::vector<OpenOffer> out;
  sql::Stmt s(db_,
              "SELECT message_id, inbox_id FROM messages WHERE attachment_id = ?1 AND state IN ('offered', 'admitted')"
              " AND inbox_id IS NOT NULL AND settled_at IS NULL ORDER BY seq LIMIT 100");
  s.bind(1, attachment_id);
  while (s.step()) out.push_back(OpenOffer{s.text(0), s.text(1)});
  return out;
}

void Journal::settle_conversation(const std::string& attachment_id, const std::string& inbox_id, std::int64_t now) {
  sql::Stmt s(db_,
              "UPDATE messages SET settled_at = ?3 WHERE attachment_id = ?1 AND inbox_id = ?2 AND settled_at IS NULL"
              " AND state IN ('offered', 'admitted', 'processed')");
  s.bind(1, attachment_id).bind(2, inbox_id).bind(3, now).run();
}

void Journal::settle_message(const std::string& message_id, std::int64_t now) {
  sql::Stmt s(db_, "UPDATE messages SET settled_at = ?2 WHERE message_id = ?1 AND settled_at IS NULL");
  s.bind(1, message_id).bind(2, now).run();
}

void Journal::start_turn(const std::string& attachment_id) {
  sql::Stmt s(db_, "UPDATE attachments SET turn_seq = turn_seq + 1 WHERE attachment_id = ?1");
  s.bind(1, attachment_id).run();
}

bool Journal::end_turn(const std::string& attachment_id) {
  sql::Stmt s(db_,
              "UPDATE attachments SET turn_seq = turn_seq + 1 WHERE attachment_id = ?1 AND EXISTS(SELECT 1 FROM messages"
              " m WHERE m.attachment_id = ?1 AND m.offer_turn > attachments.turn_seq AND m.settled_at IS NULL"
              " AND m.state IN ('offered', 'admitted', 'processed'))");
  s.bind(1, attachment_id).run();
  return db_.changes() > 0;
}

std::vector<SilentOffer> Journal::silent_offers(const std::string& attachment_id) {
  std::vector<SilentOffer> out;
  sql::Stmt s(db_,
              "SELECT m.message_id, m.inbox_id, m.nudged_at IS NOT NULL FROM messages m JOIN attachments a"
              " ON a.attachment_id = m.attachment_id WHERE m.attachment_id = ?1"
              " AND m.state IN ('offered', 'admitted', 'processed') AND m.inbox_id IS NOT NULL"
              " AND m.settled_at IS NULL AND m.offer_turn IS NOT NULL AND m.offer_turn <= a.turn_seq"
              " AND (m.emit IS NULL OR m.emit = 'done')"
              " ORDER BY m.seq LIMIT 100");
  s.bind(1, attachment_id);
  while (s.step()) out.push_back(SilentOffer{s.text(0), s.text(1), s.int64(2) != 0});
  return out;
}

void Journal::mark_nudged(const std::vector<std::string>& message_ids, std::int64_t now) {
  for_each_id(db_, "UPDATE messages SET nudged_at = ?2 WHERE message_id = ?1 AND nudged_at IS NULL", message_ids, now);
}

void Journal::settle_offers(const std::vector<std::string>& message_ids, bool emitted) {
  db_.exec("PRAGMA synchronous=NORMAL");
  try {
    for_each_id(db_,
                emitted ? "UPDATE messages SET emit = 'done' WHERE message_id = ?1 AND emit = 'pending'"
                        : "UPDATE messages SET emit = 'unsure' WHERE message_id = ?1 AND emit = 'pending'",
                message_ids);
  } catch (...) {
    db_.exec("PRAGMA synchronous=FULL");
    throw;
  }
  db_.exec("PRAGMA synchronous=FULL");
}

std::int64_t Journal::unsettled_offers_unsure() {
  sql::Stmt s(db_, "UPDATE messages SET emit = 'unsure' WHERE emit = 'pending' AND state = 'offered'");
  s.run();
  return db_.changes();
}

PossiblyLost Journal::possibly_lost(const std::string& attachment_id, int limit, bool include_told) {
  PossiblyLost out;
  const std::string which = include_told ? "emit IN ('unsure', 'told')" : "emit = 'unsure'";
  sql::Stmt n(db_, "SELECT count(*), coalesce(min(seq), 0) FROM messages WHERE attachment_id = ?1 AND "
                   "state = 'offered' AND " + which);
  n.bind(1, attachment_id);
  if (n.step()) {
    out.count = n.int64(0);
    out.first_seq = n.int64(1);
  }
  if (out.count == 0) return out;
  sql::Stmt s(db_, "SELECT message_id FROM messages WHERE attachment_id = ?1 AND state = 'offered' AND " + which +
                       " ORDER BY seq LIMIT ?2");
  s.bind(1, attachment_id).bind(2, limit);
  while (s.step()) out.message_ids.push_back(s.text(0));
  return out;
}

void Journal::possibly_lost_told(const std::vector<std::string>& message_ids) {
  for_each_id(db_, "UPDATE messages SET emit = 'told' WHERE message_id = ?1 AND emit = 'unsure'", message_ids);
}

std::int64_t Journal::possibly_lost_read(const std::vector<std::string>& message_ids) {
  return for_each_id(db_, "UPDATE messages SET emit = 'done' WHERE message_id = ?1 AND emit IN ('unsure', 'told')",
                     message_ids);
}

std::int64_t Journal::reclaim(const std::string& attachment_id, std::int64_t n) {
  sql::Stmt s(db_,
              "DELETE FROM messages WHERE rowid IN (SELECT rowid FROM messages WHERE attachment_id = ?1 AND state IN "
              "('processed', 'admitted', 'offered') ORDER BY CASE WHEN state = 'processed' THEN 0 "
              "WHEN state = 'admitted' THEN 1 WHEN coalesce(emit, 'done') IN ('done', 'pending') THEN 2 ELSE 3 END, "
              "seq LIMIT ?2)");
  s.bind(1, attachment_id).bind(2, n).run();
  return db_.changes();
}

std::int64_t Journal::free_slots(const std::string& attachment_id) {
  // From the counts the triggers keep: asked after every take while a session's messages are held back, a count
  // over the session's rows made each take cost more the fuller the session was.
  return limits_.max_messages_per_session -
         scalar(db_,
                "SELECT coalesce(sum(n), 0) FROM message_counts WHERE attachment_id = ?1 AND state IN ('received', "
                "'withheld')",
                attachment_id);
}

std::int64_t Journal::free_body_bytes() { return limits_.max_total_body_bytes - total_body_bytes(); }

std::int64_t Journal::total_body_bytes() {
  sql::Stmt s(db_, "SELECT value FROM counters WHERE name = 'cached_body_bytes'");
  return s.step() ? s.int64(0) : 0;
}

CleanupResult Journal::cleanup(std::int64_t now, CleanupScope scope) {
  CleanupResult r;
  sql::Transaction tx(db_);
  sql::Stmt p(db_, "DELETE FROM messages WHERE state = 'processed'");
  p.run();
  r.processed_removed = db_.changes();
  if (scope == CleanupScope::by_person) {
    // The person cleaned up: offers that may not have arrived are no longer reported (R-B6).
    sql::Stmt lost(db_, "UPDATE messages SET emit = 'done' WHERE state = 'offered' AND emit IN ('unsure', 'told')");
    lost.run();
    r.possibly_lost_cleared = db_.changes();
  }
  // A possibly-lost offer outlives the retention: its notice stays until it is read, acknowledged or cleared by
  // the person (the quota's reclaim takes such rows last).
  sql::Stmt o(db_, "DELETE FROM messages WHERE state IN ('offered', 'admitted') AND offered_at IS NOT NULL "
                   "AND offered_at <= ?1 AND NOT (state = 'offered' AND coalesce(emit, 'done') IN ('unsure', 'told'))");
  o.bind(1, now - limits_.offered_retention_seconds).run();
  r.offered_removed = db_.changes();
  sql::Stmt ob(db_, "DELETE FROM outbox WHERE state != 'queued' AND done_at <= ?1");
  ob.bind(1, now - limits_.offered_retention_seconds).run();
  tx.commit();
  return r;
}

std::int64_t Journal::outbox_add(const OutboxItem& item, std::int64_t now) {
  sql::Stmt s(db_,
              "INSERT INTO outbox(submission_id, attachment_id, kind, method, path, body, created_at) "
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  s.bind(1, item.submission_id).bind(2, item.attachment_id).bind(3, item.kind).bind(4, item.method);
  s.bind(5, item.path).bind(6, item.body).bind(7, now).run();
  return db_.last_insert_rowid();
}

std::vector<OutboxItem> Journal::outbox_queued(int limit) {
  sql::Stmt s(db_,
              "SELECT seq, submission_id, attachment_id, kind, method, path, body, attempts FROM outbox "
              "WHERE state = 'queued' ORDER BY seq LIMIT ?1");
  s.bind(1, limit);
  std::vector<OutboxItem> out;
  while (s.step()) {
    out.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.int64(7)});
  }
  return out;
}

void Journal::outbox_attempted(std::int64_t seq, const std::string& error) {
  sql::Stmt s(db_, "UPDATE outbox SET attempts = attempts + 1, last_error = ?2 WHERE seq = ?1");
  s.bind(1, seq).bind(2, error).run();
}

void Journal::outbox_finish(std::int64_t seq, OutboxState state, const std::string& result, std::int64_t now) {
  sql::Stmt s(db_, "UPDATE outbox SET state = ?2, result = ?3, done_at = ?4 WHERE seq = ?1");
  s.bind(1, seq).bind(2, std::string(to_string(state))).bind(3, result).bind(4, now).run();
}

std::optional<OutboxState> Journal::outbox_state(std::int64_t seq) {
  sql::Stmt s(db_, "SELECT state FROM outbox WHERE seq = ?1");
  s.bind(1, seq);
  if (!s.step()) return std::nullopt;
  return outbox_state_column(s, 0);
}

}  // namespace agentworks::bridge
