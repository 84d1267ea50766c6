// The store's SQL connection: one interface over SQLite (the embedded default on a person's computer) and
// PostgreSQL (a shared server with replicas). The store's statements are written once, in SQL both engines
// accept, with `?` placeholders; what differs (how a write transaction starts, the schema's DDL, how a failure
// is classified, the wake-up of other replicas) lives behind this interface, so no handler forks on the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace agentworks::server::db {

// What a failed statement means for the caller.
enum class Failure {
  unavailable,  // the database cannot take writes now (disk full, I/O error, connection lost): retry later
  constraint,   // a UNIQUE / NOT NULL / CHECK violation
  other,        // a bug or corruption
};

class DatabaseError : public std::runtime_error {
 public:
  DatabaseError(Failure kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Failure kind() const noexcept { return kind_; }

 private:
  Failure kind_;
};

// A prepared statement. Bind parameters are 1-based; columns are 0-based.
class Statement {
 public:
  virtual ~Statement() = default;
  virtual Statement& bind(int index, std::int64_t value) = 0;
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  virtual Statement& bind(int index, std::string_view value) = 0;
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  virtual Statement& bind_null(int index) = 0;
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Advances one row: true while a row is available, false when done (the first call executes).
  virtual bool step() = 0;
  void run() {
    while (step()) {
    }
  }
  // Runs a statement whose rows and change count nobody reads. PostgreSQL sends it with the next round trip,
  // so its failure surfaces there or at Database::settle(); SQLite runs it at once.
  virtual void run_soon() { run(); }
  // Resets for re-execution and clears bindings.
  virtual void reset() = 0;

  virtual std::int64_t int64(int col) const = 0;
  virtual std::string text(int col) const = 0;
  virtual bool is_null(int col) const = 0;
  std::optional<std::string> opt_text(int col) const {
    if (is_null(col)) return std::nullopt;
    return text(col);
  }
  std::optional<std::int64_t> opt_int64(int col) const {
    if (is_null(col)) return std::nullopt;
    return int64(col);
  }
};

enum class Engine { sqlite, postgresql };

class Database {
 public:
  virtual ~Database() = default;
  virtual Engine engine() const = 0;
  virtual std::unique_ptr<Statement> prepare(std::string_view sql) = 0;
  // One or more statements without parameters or results.
  virtual void exec(std::string_view sql) = 0;
  // One command without parameters or results (SAVEPOINT, RELEASE, COMMIT) that may wait for the next round
  // trip: PostgreSQL sends it ahead of the next statement that needs an answer; SQLite runs it at once.
  virtual void exec_soon(std::string_view sql) { exec(sql); }
  // Sends every statement queued by Statement::run_soon (and the commands before them) and reports their
  // failure now, so that it is charged to the request that queued them.
  virtual void settle() {}
  // Forgets the statements run_soon queued (the request that queued them failed); queued commands stay.
  virtual void drop_queued_statements() {}
  // Opens the batch's write transaction, serialised with every other writer of the same store (another
  // replica included), so that the rules the store checks by reading rows hold across replicas.
  virtual void begin_write() = 0;
  virtual bool transaction_open() const = 0;
  // Rows changed by the last INSERT/UPDATE/DELETE.
  virtual int changes() const = 0;
  // Rows changed by every statement on this connection so far (SQLite; it tells a commit that wrote nothing).
  virtual std::int64_t total_changes() const { return 0; }
  // Where the data lives, for logs (never a password).
  virtual std::string describe() const = 0;
};

}  // namespace agentworks::server::db
