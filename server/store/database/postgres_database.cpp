#include "store/database/postgres_database.hpp"

#include <libpq-fe.h>

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

  PostgresDatabase& db_;
  NumberedSql numbered_;
  std::string name_;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;  // int8 for integers, unknown (0) otherwise: the server infers from the column
  int prepared_generation_ = -1;
  Result result_;
  bool executed_ = false;
  int row_ = -1;
};

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
    ensure_connected();
    const std::string owned(text);
    Result r(PQexec(conn_, owned.c_str()));
    check(r, "statement failed");
  }
  void begin_write() override {
    exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLockKey) + ")");
  }
  bool transaction_open() const override {
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) return false;
    const auto s = PQtransactionStatus(conn_);
    return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE;
  }
  int changes() const override { return changes_; }
  std::string describe() const override { return where_; }

  // Re-opens a lost connection when no transaction depends on it; statements notice the new generation.
  void ensure_connected() {
    if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) return;
    if (conn_ == nullptr) {
      conn_ = PQconnectdb(url_.c_str());
    } else {
      PQreset(conn_);
    }
    if (PQstatus(conn_) != CONNECTION_OK)
      throw DatabaseError(Failure::unavailable, error_text(conn_, nullptr, "cannot reach " + where_));
    ++generation_;
    quiet_notices();
  }
  void check(const Result& r, std::string_view context) {
    const auto status = PQresultStatus(r.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      const char* n = PQcmdTuples(r.get());
      changes_ = (n != nullptr && *n != '\0') ? std::atoi(n) : 0;
      return;
    }
    throw DatabaseError(failure_of(conn_, r.get()), error_text(conn_, r.get(), context));
  }
  PGconn* conn() const { return conn_; }
  int generation() const { return generation_; }

 private:
  void quiet_notices() {
    // "relation already exists, skipping" and the like are not news for the server's log.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  }
  std::string url_;
  std::string where_;
  PGconn* conn_ = nullptr;
  int generation_ = 0;
  int serial_ = 0;
  int changes_ = 0;
};

PostgresStatement::PostgresStatement(PostgresDatabase& db, std::string_view text, int serial)
    : db_(db), numbered_(number_placeholders(text)), name_("aw" + std::to_string(serial)),
      values_(static_cast<std::size_t>(numbered_.parameters)), types_(static_cast<std::size_t>(numbered_.parameters), 0) {}

bool PostgresStatement::step() {
  if (!executed_) {
    db_.ensure_connected();
    if (prepared_generation_ != db_.generation()) {
      Result p(PQprepare(db_.conn(), name_.c_str(), numbered_.text.c_str(), numbered_.parameters, types_.data()));
      db_.check(p, "prepare failed");
      prepared_generation_ = db_.generation();
    }
    std::vector<const char*> params(values_.size());
    for (std::size_t i = 0; i < values_.size(); ++i) params[i] = values_[i] ? values_[i]->c_str() : nullptr;
    result_ = Result(PQexecPrepared(db_.conn(), name_.c_str(), numbered_.parameters, params.data(), nullptr, nullptr, 0));
    db_.check(result_, "query failed");
    executed_ = true;
    row_ = -1;
  }
  ++row_;
  return row_ < PQntuples(result_.get());
}

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
