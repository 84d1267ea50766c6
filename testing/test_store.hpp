// The store the servers under test use. By default SQLite in their data directory; with
// AGENTWORKS_TEST_STORE=postgresql (or postgresql-replicas), a PostgreSQL database per data directory, cloned from the template database
// agentworks_template (the schema `agentworks-server migrate` made) of the cluster whose directory
// AGENTWORKS_TEST_PG_DIR names (the CTest fixture's: its URL is in DIR/url) or, when that is unset, of a private
// cluster started in a temp directory on first use and stopped when this process exits.
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::testing {

inline constexpr char kPgTemplateDatabase[] = "agentworks_template";

// AGENTWORKS_TEST_STORE is postgresql or postgresql-replicas (true), unset or sqlite (false); any other value
// throws.
bool store_is_postgresql();
// AGENTWORKS_TEST_STORE is postgresql-replicas: every ServerProcess is two servers on one database behind a
// round-robin balancer (testing/server_process.hpp).
bool store_has_replicas();

// The `--store` URL for a server on `data_dir`: the same database for every server started on that directory
// (restarts keep their data), a fresh one from the template the first time. Databases whose directory is gone
// are dropped on the way; the rest when this process exits.
std::string test_store_url(const std::filesystem::path& data_dir);

// Drops the database of `data_dir` now (its server is gone and its directory with it). No-op when it has none;
// a failure is reported, not thrown.
void release_test_store(const std::filesystem::path& data_dir);

// The URL (without a database) of the cluster test_store_url uses.
std::string test_pg_server_url();

// (Re)creates agentworks_template on the server at `server_url`: an empty database that
// `agentworks-server migrate --store <its url>` fills; then nobody may connect to it, so cloning never finds it
// busy. Throws with the server's output when migrate fails.
void create_pg_template_database(const std::string& server_url);

}  // namespace agentworks::testing
