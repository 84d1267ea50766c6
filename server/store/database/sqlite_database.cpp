#include "store/database/sqlite_database.hpp"

#include <sqlite3.h>

#include <map>
#include <string>

#include "agentworks/sqlite.hpp"

namespace agentworks::server::db {
namespace {

Failure sqlite_failure(const sql::SqliteError& e) {
  switch (e.code() & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_NOMEM:
      return Failure::unavailable;
    case SQLITE_CONSTRAINT:
      return Failure::constraint;
    default:
      return Failure::other;
  }
}

// Runs f, turning the wrapper's SqliteError into the engine-neutral DatabaseError.
template <typename F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const sql::SqliteError& e) {
    throw DatabaseError(sqlite_failure(e), e.what());
  }
}

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(sql::Db& db, std::string_view text) : stmt_(translated([&] { return sql::Stmt(db, text); })) {}
  Statement& bind(int index, std::int64_t value) override {
    translated([&] { stmt_.bind(index, value); });
    return *this;
  }
  Statement& bind(int index, std::string_view value) override {
    translated([&] { stmt_.bind(index, value); });
    return *this;
  }
  Statement& bind_null(int index) override {
    translated([&] { stmt_.bind_null(index); });
    return *this;
  }
  bool step() override {
    return translated([&] { return stmt_.step(); });
  }
  void reset() override { stmt_.reset(); }
  std::int64_t int64(int col) const override { return stmt_.int64(col); }
  std::string text(int col) const override { return stmt_.text(col); }
  bool is_null(int col) const override { return stmt_.is_null(col); }

 private:
  sql::Stmt stmt_;
};

class SqliteDatabase final : public Database {
 public:
  explicit SqliteDatabase(const std::filesystem::path& file)
      : file_(file), db_(translated([&] { return std::make_unique<sql::Db>(file.string()); })) {}
  Engine engine() const override { return Engine::sqlite; }
  std::unique_ptr<Statement> prepare(std::string_view text) override {
    return std::make_unique<SqliteStatement>(*db_, text);
  }
  // Every request runs SAVEPOINT and RELEASE and every batch BEGIN and COMMIT: a single statement is compiled
  // once and kept, instead of on each run. Scripts of several statements run through sqlite3_exec.
  void exec(std::string_view text) override {
    if (text.find(';') != std::string_view::npos) {
      translated([&] { db_->exec(text); });
      return;
    }
    auto it = compiled_.find(text);
    if (it == compiled_.end()) {
      it = translated([&] { return compiled_.emplace(std::string(text), sql::Stmt(*db_, text)).first; });
    }
    sql::Stmt& stmt = it->second;
    struct ResetAfter {
      sql::Stmt& stmt;
      ~ResetAfter() { stmt.reset(); }
    } reset_after{stmt};
    translated([&] { stmt.run(); });
  }
  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  bool transaction_open() const override { return sqlite3_get_autocommit(db_->handle()) == 0; }
  int changes() const override { return db_->changes(); }
  std::int64_t total_changes() const override { return sqlite3_total_changes64(db_->handle()); }
  std::string describe() const override { return file_.string(); }

 private:
  std::filesystem::path file_;
  std::unique_ptr<sql::Db> db_;
  std::map<std::string, sql::Stmt, std::less<>> compiled_;  // finalized before db_ closes
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::filesystem::path& file) {
  return std::make_unique<SqliteDatabase>(file);
}

}  // namespace agentworks::server::db
