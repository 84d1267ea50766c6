#include "agentworks/sqlite.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <string>
#include <utility>

namespace agentworks::sql {

bool SqliteError::fatal() const noexcept {
  switch (code_ & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return true;
    default:
      return false;
  }
}

bool SqliteError::constraint() const noexcept { return (code_ & 0xff) == SQLITE_CONSTRAINT; }

Db::Db(const std::string& path, const char* vfs) {
  // Create the file 0600 before SQLite does, so it never exists with wider permissions.
  const mode_t old = ::umask(077);
  const int rc = sqlite3_open_v2(path.c_str(), &db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, vfs);
  ::umask(old);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(rc, "cannot open database " + path + ": " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
  } catch (...) {
    // A constructor that throws runs no destructor: close the handle here (e.g. a corrupt file).
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Db::~Db() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

void Db::fail(int rc, std::string_view context) const {
  throw SqliteError(sqlite3_extended_errcode(db_) != 0 ? sqlite3_extended_errcode(db_) : rc,
                    std::string(context) + ": " + sqlite3_errmsg(db_));
}

void Db::exec(std::string_view sql) {
  char* err = nullptr;
  const std::string s(sql);
  const int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw SqliteError(sqlite3_extended_errcode(db_), "sqlite exec failed: " + msg);
  }
}

std::int64_t Db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }

std::string Db::integrity_check() {
  Stmt s(*this, "PRAGMA integrity_check");
  std::string out;
  while (s.step()) {
    if (!out.empty()) out += "\n";
    out += s.text(0);
  }
  return out;
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(&db) {
  auto& cache = db.statements_;
  if (auto it = cache.find(sql); it != cache.end()) {
    if (it->second != nullptr) {
      stmt_ = std::exchange(it->second, nullptr);
      slot_ = &it->second;
      return;
    }
  }
  const int rc = sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    db.fail(rc, "prepare failed for: " + std::string(sql));
  }
  if (cache.size() < Db::kMaxCachedStatements) {
    // Element references survive a rehash, so the slot stays valid while the database lives.
    const auto [it, added] = cache.try_emplace(std::string(sql), nullptr);
    if (added) slot_ = &it->second;
  }
}

Stmt::~Stmt() {
  if (stmt_ == nullptr) return;
  if (slot_ != nullptr && *slot_ == nullptr) {
    sqlite3_reset(stmt_);  // also ends a read it left unfinished
    sqlite3_clear_bindings(stmt_);
    *slot_ = stmt_;
    return;
  }
  sqlite3_finalize(stmt_);
}

Stmt::Stmt(Stmt&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), slot_(std::exchange(other.slot_, nullptr)) {}

Stmt& Stmt::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail(rc, "bind failed");
  return *this;
}

Stmt& Stmt::bind(int index, std::string_view value) {
  const int rc =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) db_->fail(rc, "bind failed");
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_->fail(rc, "bind failed");
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(rc, "step failed");
}

void Stmt::run() {
  while (step()) {
  }
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::optional<std::string> Stmt::opt_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

std::optional<std::int64_t> Stmt::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

// Through Stmt, so the three statements stay prepared.
Transaction::Transaction(Db& db) : db_(db) { Stmt(db_, "BEGIN IMMEDIATE").run(); }

Transaction::~Transaction() {
  if (!done_) {
    try {
      Stmt(db_, "ROLLBACK").run();
    } catch (...) {  // a failed rollback leaves SQLite to roll back on close
    }
  }
}

void Transaction::commit() {
  Stmt(db_, "COMMIT").run();
  done_ = true;
}

}  // namespace agentworks::sql
