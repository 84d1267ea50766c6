// A test PostgreSQL server spoken to over libpq: is it up, run a statement, read one value, make a database from
// a template and drop it. URLs are libpq connection URIs; a `server_url` names no database (statements about
// databases run in the maintenance database "postgres"). libpq stays out of this header.
#pragma once

#include <string>

namespace agentworks::testing {

// `server_url` with `dbname` as its database: postgresql://agentworks@127.0.0.1:5432 + "x" ->
// postgresql://agentworks@127.0.0.1:5432/x (a query such as ?host=/dir is kept after it).
std::string pg_url_with_database(const std::string& server_url, const std::string& dbname);

// True when the server at `url` accepts connections now (PQping); false while it starts or when it is down.
bool pg_accepts_connections(const std::string& url);

// Runs one statement in the database `url` names; throws std::runtime_error with the server's message.
void pg_execute(const std::string& url, const std::string& sql);

// The first column of the first row of `sql` ("" when there is no row or it is NULL); throws like pg_execute.
std::string pg_query_value(const std::string& url, const std::string& sql);

// Database names the harness makes are plain identifiers: [a-z_][a-z0-9_]*, at most 63 bytes. Throws otherwise.
void check_pg_database_name(const std::string& name);

// CREATE DATABASE name [TEMPLATE template_name]; nothing may be connected to the template.
void pg_create_database(const std::string& server_url, const std::string& name, const std::string& template_name = "");

// DROP DATABASE IF EXISTS name WITH (FORCE): backends still connected to it (a killed server's) are terminated.
void pg_drop_database(const std::string& server_url, const std::string& name);

}  // namespace agentworks::testing
