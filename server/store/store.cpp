#include "store/store.hpp"

#include <sqlite3.h>

#include "store/schema.hpp"
#include "store/store_failure.hpp"

namespace agentworks::server {

Store::Store(const std::filesystem::path& data_dir, Limits limits)
    : limits_(limits), path_(data_dir / "server.db"), db_(std::make_unique<sql::Db>(path_.string())) {
  create_schema(*db_);
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

sql::Stmt& Store::stmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it == stmts_.end()) it = stmts_.emplace(sql, std::make_unique<sql::Stmt>(*db_, sql)).first;
  return *it->second;
}

void Store::begin_batch() {
  if (in_batch_) return;
  db_->exec("BEGIN IMMEDIATE");
  in_batch_ = true;
}

bool Store::transaction_open() const { return sqlite3_get_autocommit(db_->handle()) == 0; }

void Store::commit_batch() {
  if (batch_lost_) {
    // SQLite rolled the whole batch back under a failing request: the requests answered "ok" so far in this
    // batch are parked and must not be told they were stored.
    batch_lost_ = false;
    throw Error(ErrorCode::unavailable, "the batch's transaction was rolled back by a failed write");
  }
  if (!in_batch_) return;
  db_->exec("COMMIT");
  in_batch_ = false;
}

void Store::rollback_batch() {
  events_ = StoreEvents{};
  batch_lost_ = false;
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

void Store::in_request(const std::function<void()>& f) {
  try {
    begin_batch();
    db_->exec("SAVEPOINT req");
  } catch (...) {
    rethrow_store_failure();
  }
  request_events_ = StoreEvents{};
  try {
    f();
    db_->exec("RELEASE req");
  } catch (...) {
    request_events_ = StoreEvents{};
    if (!transaction_open()) {
      // SQLite rolled back the whole batch (it may on SQLITE_FULL / SQLITE_IOERR): every request of this batch
      // is lost, and the batch must fail instead of committing nothing and answering "stored".
      in_batch_ = false;
      batch_lost_ = true;
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
  request_events_ = StoreEvents{};
}

}  // namespace agentworks::server
