#include "store/database/postgres_database.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "store/database/placeholders.hpp"

namespace agentworks::server::db {
namespace {

constexpr Oid kInt8Oid = 20;

Failure failure_of(PGconn* conn, const PGresult* res) {
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) return Failure::unavailable;
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  if (state == nullptr) return Failure::unavailable;  // no answer at all: the connection is in trouble
  const std::string_view s(state);
  if (s.substr(0, 2) == "23") return Failure::constraint;
  // connection exceptions, shutdown, insufficient resources, serialization failure and deadlock: retryable
  if (s.substr(0, 2) == "08" || s.substr(0, 3) == "57P" || s.substr(0, 2) == "53" || s == "40001" || s == "40P01")
    return Failure::unavailable;
  return Failure::other;
}

std::string error_text(PGconn* conn, const PGresult* res, std::string_view context) {
  std::string what = "PostgreSQL: ";
  what += context;
  const char* msg = res != nullptr ? PQresultErrorMessage(res) : nullptr;
  if (msg == nullptr || *msg == '\0') msg = conn != nullptr ? PQerrorMessage(conn) : "no connection";
  what += ": ";
  what += msg;
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  return what;
}

class Result {
 public:
  explicit Result(PGresult* r = nullptr) : r_(r) {}
  ~Result() { PQclear(r_); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&& o) noexcept {
    if (this != &o) {
      PQclear(r_);
      r_ = o.r_;
      o.r_ = nullptr;
    }
    return *this;
  }
  PGresult* get() const { return r_; }

 private:
  PGresult* r_;
};

class PostgresDatabase;

// One command of a pipeline: a parameterless command (SAVEPOINT, COMMIT...) or a prepared statement's run.
struct Command {
  std::string text;  // the SQL (a statement's, for preparing it)
  std::string name;  // a prepared statement's name; empty for a parameterless command
  int parameters = 0;
  std::vector<Oid> types;
  std::vector<std::optional<std::string>> values;
};

class PostgresStatement final : public Statement {
 public:
  PostgresStatement(PostgresDatabase& db, std::string_view text, int serial);
  Statement& bind(int index, std::int64_t value) override {
    slot(index) = std::to_string(value);
    type(index) = kInt8Oid;
    return *this;
  }
  Statement& bind(int index, std::string_view value) override {
    slot(index) = std::string(value);
    return *this;
  }
  Statement& bind_null(int index) override {
    slot(index).reset();
    return *this;
  }
  bool step() override;
  void run_soon() override;
  void reset() override {
    result_ = Result();
    executed_ = false;
    row_ = -1;
    for (auto& v : values_) v.reset();
  }
  std::int64_t int64(int col) const override {
    const char* v = PQgetvalue(result_.get(), row_, col);
    if (v[0] == 't' && v[1] == '\0') return 1;  // a boolean expression
    if (v[0] == 'f' && v[1] == '\0') return 0;
    std::int64_t out = 0;
    std::from_chars(v, v + std::strlen(v), out);
    return out;
  }
  std::string text(int col) const override {
    return std::string(PQgetvalue(result_.get(), row_, col),
                       static_cast<std::size_t>(PQgetlength(result_.get(), row_, col)));
  }
  bool is_null(int col) const override { return PQgetisnull(result_.get(), row_, col) != 0; }

 private:
  std::optional<std::string>& slot(int index) {
    if (index < 1 || index > numbered_.parameters)
      throw DatabaseError(Failure::other, "bind index " + std::to_string(index) + " out of range");
    return values_[static_cast<std::size_t>(index - 1)];
  }
  Oid& type(int index) { return types_[static_cast<std::size_t>(index - 1)]; }
  Command command() const { return Command{numbered_.text, name_, numbered_.parameters, types_, values_}; }

  PostgresDatabase& db_;
  NumberedSql numbered_;
  std::string name_;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;  // int8 for integers, unknown (0) otherwise: the server infers from the column
  Result result_;
  bool executed_ = false;
  int row_ = -1;
};

// Every statement is a round trip to another process, so commands nobody waits for (BEGIN and the write lock,
// SAVEPOINT, RELEASE, writes without results) queue up and travel in one libpq pipeline with the next statement
// whose answer is needed. A failure is reported by that statement, or by settle() at the end of the request
// that queued it; a queued parameterless command that fails rolls the whole transaction back, so the store
// treats the batch as lost instead of charging the failure to the wrong request.
class PostgresDatabase final : public Database {
 public:
  explicit PostgresDatabase(std::string url) : url_(std::move(url)), where_(describe_postgresql_url(url_)) {
    conn_ = PQconnectdb(url_.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = error_text(conn_, nullptr, "cannot connect to " + where_);
      PQfinish(conn_);
      conn_ = nullptr;
      throw DatabaseError(Failure::unavailable, why);
    }
    quiet_notices();
  }
  ~PostgresDatabase() override { PQfinish(conn_); }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  Engine engine() const override { return Engine::postgresql; }
  std::unique_ptr<Statement> prepare(std::string_view text) override {
    return std::make_unique<PostgresStatement>(*this, text, ++serial_);
  }
  void exec(std::string_view text) override {
    if (!queue_.empty() && text.find(';') == std::string_view::npos) {
      exec_soon(text);
      flush();
      return;
    }
    if (!queue_.empty()) flush();  // several commands: a pipeline carries one command per message
    ensure_connected();
    const std::string owned(text);
    Result r(PQexec(conn_, owned.c_str()));
    check(r, "statement failed");
  }
  void exec_soon(std::string_view text) override {
    Command c;
    c.text = std::string(text);
    queue_.push_back(std::move(c));
  }
  void settle() override {
    if (queued_statements_ > 0) flush();
  }
  void drop_queued_statements() override {
    std::erase_if(queue_, [](const Command& c) { return !c.name.empty(); });
    queued_statements_ = 0;
  }
  void begin_write() override {
    exec_soon("BEGIN");
    exec_soon("SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLockKey) + ")");
    begin_queued_ = true;
  }
  bool transaction_open() const override {
    if (begin_queued_) return true;
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) return false;
    const auto s = PQtransactionStatus(conn_);
    return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE;
  }
  int changes() const override { return changes_; }
  std::string describe() const override { return where_; }

  void queue(Command c) {
    queue_.push_back(std::move(c));
    ++queued_statements_;
  }
  // Sends the queue and then `last` (when given) in one pipeline; returns last's result.
  Result flush(std::optional<Command> last = std::nullopt);

  // Re-opens a lost connection when no transaction depends on it; statements are prepared again on it.
  void ensure_connected() {
    if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) return;
    if (conn_ == nullptr) {
      conn_ = PQconnectdb(url_.c_str());
    } else {
      PQreset(conn_);
    }
    prepared_.clear();
    if (PQstatus(conn_) != CONNECTION_OK)
      throw DatabaseError(Failure::unavailable, error_text(conn_, nullptr, "cannot reach " + where_));
    quiet_notices();
  }
  void check(const Result& r, std::string_view context) {
    const auto status = PQresultStatus(r.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      count_changes(r);
      return;
    }
    throw DatabaseError(failure_of(conn_, r.get()), error_text(conn_, r.get(), context));
  }

 private:
  void quiet_notices() {
    // "relation already exists, skipping" and the like are not news for the server's log.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  }
  void count_changes(const Result& r) {
    const char* n = PQcmdTuples(r.get());
    changes_ = (n != nullptr && *n != '\0') ? std::atoi(n) : 0;
  }
  // Queues one command on the connection; false when libpq refused it (the connection is in trouble).
  bool send(const Command& c, bool& prepares);
  // The first result of the command being read, draining what follows it (nullptr when none came).
  Result next_result();
  // Reads up to the pipeline's sync and leaves pipeline mode; a connection that cannot is dropped (re-opened
  // by the next statement).
  void finish_pipeline();

  std::string url_;
  std::string where_;
  PGconn* conn_ = nullptr;
  std::vector<std::string> prepared_;  // statement names prepared on this connection
  std::vector<Command> queue_;
  int queued_statements_ = 0;
  bool begin_queued_ = false;
  int serial_ = 0;
  int changes_ = 0;
};

bool PostgresDatabase::send(const Command& c, bool& prepares) {
  if (c.name.empty()) return PQsendQueryParams(conn_, c.text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  prepares = std::find(prepared_.begin(), prepared_.end(), c.name) == prepared_.end();
  if (prepares && PQsendPrepare(conn_, c.name.c_str(), c.text.c_str(), c.parameters, c.types.data()) != 1)
    return false;
  std::vector<const char*> params(c.values.size());
  for (std::size_t i = 0; i < c.values.size(); ++i) params[i] = c.values[i] ? c.values[i]->c_str() : nullptr;
  return PQsendQueryPrepared(conn_, c.name.c_str(), c.parameters, params.data(), nullptr, nullptr, 0) == 1;
}

Result PostgresDatabase::next_result() {
  Result first(PQgetResult(conn_));
  if (first.get() == nullptr) return first;
  while (PGresult* more = PQgetResult(conn_)) PQclear(more);
  return first;
}

void PostgresDatabase::finish_pipeline() {
  if (PQpipelineStatus(conn_) == PQ_PIPELINE_OFF) return;
  while (PGresult* r = PQgetResult(conn_)) {
    const bool sync = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
    if (sync) break;
  }
  if (PQexitPipelineMode(conn_) != 1) {
    PQfinish(conn_);
    conn_ = nullptr;
    prepared_.clear();
  }
}

Result PostgresDatabase::flush(std::optional<Command> last) {
  std::vector<Command> commands = std::move(queue_);
  queue_.clear();
  queued_statements_ = 0;
  begin_queued_ = false;
  if (last) commands.push_back(std::move(*last));
  if (commands.empty()) return Result();
  ensure_connected();

  if (PQenterPipelineMode(conn_) != 1)
    throw DatabaseError(Failure::unavailable, error_text(conn_, nullptr, "cannot start a pipeline"));
  std::vector<bool> prepares(commands.size(), false);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    bool p = false;
    if (!send(commands[i], p)) {
      const std::string why = error_text(conn_, nullptr, "cannot send a statement");
      finish_pipeline();
      throw DatabaseError(Failure::unavailable, why);
    }
    prepares[i] = p;
  }
  if (PQpipelineSync(conn_) != 1) {
    const std::string why = error_text(conn_, nullptr, "cannot send a statement");
    finish_pipeline();
    throw DatabaseError(Failure::unavailable, why);
  }

  // One answer per prepare and per command, in order; the first failure is the one to report.
  Result answer;
  std::optional<DatabaseError> failure;
  bool failed_command = false;  // the first failure was a parameterless command's
  for (std::size_t i = 0; i < commands.size(); ++i) {
    for (int part = prepares[i] ? 0 : 1; part < 2; ++part) {
      Result r = next_result();
      const auto status = r.get() != nullptr ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
      const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
      if (ok && part == 0) prepared_.push_back(commands[i].name);
      if (!ok && !failure && status != PGRES_PIPELINE_ABORTED) {
        failure.emplace(failure_of(conn_, r.get()),
                        error_text(conn_, r.get(), part == 0 ? "prepare failed" : "query failed"));
        failed_command = commands[i].name.empty();
      }
      if (part == 1 && i + 1 == commands.size()) answer = std::move(r);
    }
  }
  finish_pipeline();
  if (!failure && (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK))
    failure.emplace(Failure::unavailable, "PostgreSQL: the connection to " + where_ + " was lost");
  if (failure) {
    // A failed BEGIN, lock, SAVEPOINT or RELEASE leaves no savepoint a request could roll back to.
    if (failed_command && conn_ != nullptr && PQtransactionStatus(conn_) == PQTRANS_INERROR)
      Result(PQexec(conn_, "ROLLBACK"));
    throw *failure;
  }
  count_changes(answer);
  return answer;
}

PostgresStatement::PostgresStatement(PostgresDatabase& db, std::string_view text, int serial)
    : db_(db), numbered_(number_placeholders(text)), name_("aw" + std::to_string(serial)),
      values_(static_cast<std::size_t>(numbered_.parameters)), types_(static_cast<std::size_t>(numbered_.parameters), 0) {}

bool PostgresStatement::step() {
  if (!executed_) {
    result_ = db_.flush(command());
    executed_ = true;
    row_ = -1;
  }
  ++row_;
  return row_ < PQntuples(result_.get());
}

void PostgresStatement::run_soon() { db_.queue(command()); }

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& url) { return std::make_unique<PostgresDatabase>(url); }

bool is_postgresql_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

std::string describe_postgresql_url(const std::string& url) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  if (opts == nullptr) {
    PQfreemem(err);
    return "PostgreSQL (unparsable URL)";
  }
  std::string host;
  std::string port;
  std::string dbname;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::strcmp(o->keyword, "host") == 0) host = o->val;
    if (std::strcmp(o->keyword, "port") == 0) port = o->val;
    if (std::strcmp(o->keyword, "dbname") == 0) dbname = o->val;
  }
  PQconninfoFree(opts);
  std::string out = "postgresql://" + (host.empty() ? std::string("localhost") : host);
  if (!port.empty()) out += ":" + port;
  out += "/" + dbname;
  return out;
}

}  // namespace agentworks::server::db
