#include "testing/pg_admin.hpp"

#include <libpq-fe.h>

#include <memory>
#include <stdexcept>

namespace agentworks::testing {
namespace {

struct PgConnectionCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct PgResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgConnection = std::unique_ptr<PGconn, PgConnectionCloser>;
using PgResult = std::unique_ptr<PGresult, PgResultClearer>;

// A bounded connect: a test must never hang on a server that does not answer.
PgConnection pg_connect(const std::string& url) {
  const char* keywords[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), "10", nullptr};
  PgConnection conn(PQconnectdbParams(keywords, values, /*expand_dbname=*/1));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    const std::string why = conn ? PQerrorMessage(conn.get()) : "out of memory";
    throw std::runtime_error("cannot connect to PostgreSQL at " + url + ": " + why);
  }
  // NOTICEs ("database ... does not exist, skipping") are expected here and would only clutter test output.
  PQsetNoticeProcessor(conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

PgResult pg_run(const std::string& url, const std::string& sql) {
  const PgConnection conn = pg_connect(url);
  PgResult result(PQexec(conn.get(), sql.c_str()));
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error("PostgreSQL at " + url + " refused `" + sql + "`: " + PQerrorMessage(conn.get()));
  }
  return result;
}

// Names are checked by check_pg_database_name, so double quotes are all the quoting they need.
std::string quoted_identifier(const std::string& name) { return "\"" + name + "\""; }

}  // namespace

std::string pg_url_with_database(const std::string& server_url, const std::string& dbname) {
  const auto query = server_url.find('?');
  std::string base = server_url.substr(0, query);
  const std::string rest = query == std::string::npos ? "" : server_url.substr(query);
  const auto scheme_end = base.find("://");
  const auto path = base.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path != std::string::npos) base.erase(path);  // a database already named is replaced
  return base + "/" + dbname + rest;
}

bool pg_accepts_connections(const std::string& url) {
  const char* keywords[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), "2", nullptr};
  return PQpingParams(keywords, values, /*expand_dbname=*/1) == PQPING_OK;
}

void pg_execute(const std::string& url, const std::string& sql) { pg_run(url, sql); }

std::string pg_query_value(const std::string& url, const std::string& sql) {
  const PgResult result = pg_run(url, sql);
  if (PQntuples(result.get()) == 0 || PQnfields(result.get()) == 0 || PQgetisnull(result.get(), 0, 0)) return "";
  return PQgetvalue(result.get(), 0, 0);
}

void check_pg_database_name(const std::string& name) {
  const bool starts_well = !name.empty() && ((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_');
  bool plain = starts_well && name.size() <= 63;
  for (const char c : name) plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (!plain) {
    throw std::invalid_argument("database name '" + name +
                                "' is not a plain identifier: use [a-z_][a-z0-9_]*, at most 63 bytes");
  }
}

void pg_create_database(const std::string& server_url, const std::string& name, const std::string& template_name) {
  check_pg_database_name(name);
  std::string sql = "CREATE DATABASE " + quoted_identifier(name);
  if (!template_name.empty()) {
    check_pg_database_name(template_name);
    sql += " TEMPLATE " + quoted_identifier(template_name);
  }
  pg_execute(pg_url_with_database(server_url, "postgres"), sql);
}

void pg_drop_database(const std::string& server_url, const std::string& name) {
  check_pg_database_name(name);
  pg_execute(pg_url_with_database(server_url, "postgres"),
             "DROP DATABASE IF EXISTS " + quoted_identifier(name) + " WITH (FORCE)");
}

}  // namespace agentworks::testing
