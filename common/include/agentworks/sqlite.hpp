// Thin RAII wrapper over SQLite3 shared by the server store and the bridge journal.
// Every failure throws SqliteError carrying the SQLite result code, so callers can tell
// I/O, full-disk and corruption errors (fatal for the bridge, invariant 10) from constraint errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agentworks/sqlite_wal_coalescing.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace agentworks::sql {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }        // extended result code
  bool fatal() const noexcept;                        // I/O, full disk, corruption, not a database
  bool constraint() const noexcept;                   // UNIQUE/NOT NULL/... violation

 private:
  int code_;
};

class Db;

// A prepared statement. Bind parameters are 1-based; columns are 0-based. Its database keeps it prepared for the
// next Stmt with the same SQL text: it is reset and its bindings cleared when this one ends.
class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&&) = delete;

  Stmt& bind(int index, std::int64_t value);
  Stmt& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Stmt& bind(int index, std::string_view value);
  Stmt& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Stmt& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  Stmt& bind_null(int index);
  template <typename T>
  Stmt& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Advances one row: true while a row is available, false when done.
  bool step();
  // Runs to completion, ignoring rows.
  void run();
  // Resets for re-execution and clears bindings.
  void reset();

  std::int64_t int64(int col) const;
  std::string text(int col) const;
  bool is_null(int col) const;
  std::optional<std::string> opt_text(int col) const;
  std::optional<std::int64_t> opt_int64(int col) const;

 private:
  Db* db_;
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3_stmt** slot_ = nullptr;  // the database's cache entry it goes back to, when it has one
};

class Db {
 public:
  // Opens (creating) the database with WAL journaling, synchronous=FULL, foreign keys on and a busy timeout.
  // The file is created 0600. Its WAL writes are gathered into one write call per commit
  // (sqlite_wal_coalescing.hpp); `vfs` names another registered VFS, or null for SQLite's default.
  explicit Db(const std::string& path, const char* vfs = wal_write_coalescing_vfs());
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(std::string_view sql);  // one or more statements, no results
  std::int64_t last_insert_rowid() const;
  int changes() const;
  sqlite3* handle() const { return db_; }
  [[noreturn]] void fail(int rc, std::string_view context) const;

  // Result of PRAGMA integrity_check ("ok" when healthy).
  std::string integrity_check();

 private:
  friend class Stmt;
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  // Statements kept prepared between uses, by SQL text (preparing costs more than running most of them). A null
  // value is an entry whose statement a Stmt holds now; a second Stmt with that text prepares its own.
  using StatementCache = std::unordered_map<std::string, sqlite3_stmt*, TextHash, std::equal_to<>>;
  static constexpr std::size_t kMaxCachedStatements = 256;  // SQL built at run time cannot grow it without end

  sqlite3* db_ = nullptr;
  StatementCache statements_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace agentworks::sql
