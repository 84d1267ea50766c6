#include "store/store.hpp"

#include "agentworks/random.hpp"
#include "store/replica_notice.hpp"
#include "store/database/postgres_database.hpp"
#include "store/database/sqlite_database.hpp"
#include "store/schema.hpp"
#include "store/store_failure.hpp"

namespace agentworks::server {

namespace {
std::unique_ptr<db::Database> open_database(const StoreLocation& where) {
  if (!where.url.empty()) return db::open_postgresql(where.url);
  return db::open_sqlite(where.data_dir / "server.db");
}
}  // namespace

Store::Store(const StoreLocation& where, Limits limits)
    : limits_(limits), replica_id_(where.replica_id.empty() ? new_id("rep") : where.replica_id), url_(where.url), path_(where.url.empty() ? where.data_dir / "server.db" : std::filesystem::path()),
      db_(open_database(where)) {
  if (db_->engine() == db::Engine::sqlite) {
    prepare_sqlite_schema(*db_);
  } else {
    check_postgresql_schema(*db_);
  }
}

Store::~Store() {
  if (in_batch_) {
    try {
      rollback_batch();
    } catch (...) {
    }
  }
  stmts_.clear();  // finalize statements before the database closes
}

db::Statement& Store::stmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it == stmts_.end()) it = stmts_.emplace(sql, db_->prepare(sql)).first;
  return *it->second;
}

void Store::begin_batch() {
  if (in_batch_) return;
  db_->begin_write();
  in_batch_ = true;
  ++batch_;
  changes_at_begin_ = db_->total_changes();
}

bool Store::transaction_open() const { return db_->transaction_open(); }

void Store::defer_wal_sync() {
  if (db_->engine() != db::Engine::sqlite) return;
  // A long-running server keeps more of the indexes cached than SQLite's 2 MiB default: fewer reads per request.
  db_->exec("PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768");
  wal_sync_deferred_ = true;
  committed_seq_ = durable_seq_ = last_message_seq();  // what earlier commits flushed themselves
}

Store::BatchCommit Store::commit_batch() {
  if (!in_batch_) return {};
  notify_replicas();
  const std::int64_t seq = wal_sync_deferred_ ? last_message_seq() : 0;
  db_->exec("COMMIT");  // PostgreSQL: one round trip with the last RELEASE and the notices
  in_batch_ = false;
  if (!wal_sync_deferred_) return {batch_, true};
  committed_seq_ = seq;
  return {batch_, db_->total_changes() != changes_at_begin_};
}

// PostgreSQL delivers a NOTIFY only when its transaction commits: other replicas hear of exactly what is stored.
void Store::notify_replicas() {
  if (db_->engine() != db::Engine::postgresql || events_.empty()) return;
  for (const auto& payload : notice_payloads(replica_id_, events_)) {
    Q q(*this, "SELECT pg_notify(?, ?)");
    q->bind(1, kNoticeChannel).bind(2, payload).run_soon();
  }
}

void Store::rollback_batch() {
  events_ = StoreEvents{};
  if (!in_batch_) return;
  in_batch_ = false;
  // A failed COMMIT on a full disk or an I/O error may already have rolled back.
  if (transaction_open()) db_->exec("ROLLBACK");
}

StoreEvents Store::take_events() {
  StoreEvents out = std::move(events_);
  events_ = StoreEvents{};
  return out;
}

std::uint64_t Store::in_request(const std::function<void()>& f) {
  try {
    begin_batch();
    db_->exec_soon("SAVEPOINT req");
  } catch (...) {
    rethrow_store_failure();
  }
  request_events_ = StoreEvents{};
  try {
    f();
    db_->settle();  // a queued write's failure belongs to this request
    db_->exec_soon("RELEASE req");
  } catch (...) {
    request_events_ = StoreEvents{};
    db_->drop_queued_statements();
    if (!transaction_open()) {
      // The engine rolled back the whole batch (SQLite may on SQLITE_FULL / SQLITE_IOERR; PostgreSQL when the
      // connection is lost): the answers parked for it are never released, since no commit returns its number;
      // the next request begins the next batch. (PostgreSQL sends BEGIN with the first statement, so the batch's
      // first request may be the one that finds the loss.)
      in_batch_ = false;
      events_ = StoreEvents{};
    } else {
      db_->exec("ROLLBACK TO req; RELEASE req");
    }
    rethrow_store_failure();
  }
  for (auto& m : request_events_.messages) events_.messages.push_back(std::move(m));
  for (auto& x : request_events_.fenced) events_.fenced.push_back(std::move(x));
  for (auto& x : request_events_.revoked_connections) events_.revoked_connections.push_back(std::move(x));
  for (auto& x : request_events_.calls_started) events_.calls_started.push_back(std::move(x));
  for (auto& x : request_events_.calls_changed) events_.calls_changed.push_back(std::move(x));
  for (auto& x : request_events_.calls_cancelled) events_.calls_cancelled.push_back(std::move(x));
  for (auto& x : request_events_.turns_started) events_.turns_started.push_back(std::move(x));
  request_events_ = StoreEvents{};
  return batch_;
}

}  // namespace agentworks::server
