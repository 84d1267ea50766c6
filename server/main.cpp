// agentworks-server: the reference message server (docs/protocol.md, "Server command line").
//   agentworks-server [--listen 127.0.0.1:PORT] [--tls-cert FILE --tls-key FILE | --behind-proxy] --data DIR
//                     [--store postgresql://...] [limit flags]
//   agentworks-server migrate (--data DIR | --store postgresql://...)
//   agentworks-server account add NAME (--data DIR | --store postgresql://...)
// CLI11 2.1's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (false positive).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "start/server_setup.hpp"

using namespace agentworks;
using namespace agentworks::server;

int main(int argc, char** argv) {
  paths::use_account_database();
  spdlog::set_default_logger(spdlog::stderr_color_mt("server"));
  CLI::App app{"agentworks reference message server"};
  ServeOptions opt;
  app.add_option("--listen", opt.listen, "IPV4:PORT or [IPV6]:PORT to listen on (PORT 0 picks a free port)")->capture_default_str();
  app.add_option("--data", opt.data_dir, "data directory (created 0700): the SQLite store and logs");
  app.add_option("--store", opt.store_url,
                 "postgresql://USER@HOST[:PORT]/DB: keep the store in PostgreSQL (shared by replicas) instead of "
                 "SQLite in --data");
  app.add_option("--tls-cert", opt.tls_cert, "serve HTTPS with this PEM certificate (chain); needs --tls-key");
  app.add_option("--tls-key", opt.tls_key, "the PEM private key of --tls-cert (unencrypted)");
  app.add_flag("--behind-proxy", opt.behind_proxy,
               "allow plaintext --listen beyond loopback: a TLS-terminating proxy is in front (only it may reach us)");
  Limits& l = opt.limits;
  app.add_option("--rate-limit-per-hour", l.rate_limit_per_hour, "messages per hour per conversation")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--inbox-history", l.inbox_history, "messages kept per inbox")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-inboxes-per-account", l.max_inboxes_per_account, "open inboxes per account")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-inboxes-total", l.max_inboxes_total, "open inboxes in the store")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--inbox-idle-seconds", l.inbox_idle_seconds, "idle inboxes are removed after this")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--expired-retention-seconds", l.expired_retention_seconds, "removed inboxes answer expired this long")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--max-agents-per-account", l.max_agents_per_account, "registered names per account")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-agents-total", l.max_agents_total, "registered names in the store")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--heartbeat-seconds", l.heartbeat_seconds, "SSE heartbeat interval")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-connections", opt.max_connections,
                 "open HTTP connections at most (default and ceiling: the open-file limit minus 64)")
      ->check(CLI::PositiveNumber);
  app.add_option("--request-deadline-seconds", l.request_deadline_seconds,
                 "a request must arrive completely within this after accept (or its first byte)")
      ->capture_default_str()->check(CLI::Range(1, 3600));

  app.add_option("--crew-max-running", l.crew_max_running, "running function calls per Crew (one more is busy)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--call-output-ttl-seconds", l.call_output_ttl_seconds,
                 "a call's folder is removed this long after its last change")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--call-sweep-interval-seconds", l.call_sweep_interval_seconds,
                 "call folders of a Crew are swept at most this often")
      ->capture_default_str()->check(CLI::NonNegativeNumber);

  app.add_option("--crew-root", l.crew_roots,
                 "a folder in which accounts other than the owner may register Crews (repeatable; default: none, "
                 "only the owner registers Crews)")
      ->check(CLI::ExistingDirectory)
      ->transform([](std::string dir) { return std::filesystem::canonical(dir).string(); });
  app.add_option("--call-lease-seconds", l.call_lease_seconds,
                 "a call whose replica (PostgreSQL) or runner (a served Crew) stopped renewing its lease this long is "
                 "interrupted")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  app.add_option("--call-upload-limit", l.call_upload_limit,
                 "bytes of one file of a served Crew's call that its runner uploads (a larger file is listed, not stored)")
      ->capture_default_str()->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));

  app.add_option("--wakeup-tick-seconds", l.wakeup_tick_seconds,
                 "how often due wakeups are looked for (a wakeup fires at most this late)")
      ->capture_default_str()->check(CLI::Range(1, 60));

  auto* account = app.add_subcommand("account", "manage accounts");
  auto* add = account->add_subcommand("add", "add an account and print its login token");
  std::string account_name;
  std::string account_data;
  add->add_option("name", account_name, "account name")->required();
  std::string account_store;
  auto* add_data = add->add_option("--data", account_data, "data directory of a SQLite store");
  auto* add_store = add->add_option("--store", account_store, "postgresql:// URL of the store");
  add_data->excludes(add_store);
  account->require_subcommand(1);

  auto* migrate_cmd = app.add_subcommand("migrate", "create or upgrade the store's schema (PostgreSQL: before the "
                                                    "first start and after each upgrade of the server)");
  std::string migrate_data;
  std::string migrate_store;
  auto* migrate_data_opt = migrate_cmd->add_option("--data", migrate_data, "data directory of a SQLite store");
  auto* migrate_store_opt = migrate_cmd->add_option("--store", migrate_store, "postgresql:// URL of the store");
  migrate_data_opt->excludes(migrate_store_opt);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? exit_ok : exit_usage;
  }
  try {
    if (add->parsed()) {
      if (account_data.empty() && account_store.empty()) {
        std::cerr << "agentworks-server: account add needs --data DIR or --store URL\n";
        return exit_usage;
      }
      std::cout << add_account(account_data, account_store, account_name) << std::endl;
      return exit_ok;
    }
    if (migrate_cmd->parsed()) {
      if (migrate_data.empty() && migrate_store.empty()) {
        std::cerr << "agentworks-server: migrate needs --data DIR or --store URL\n";
        return exit_usage;
      }
      std::cout << migrate(migrate_data, migrate_store) << std::endl;
      return exit_ok;
    }
    if (opt.data_dir.empty()) {
      std::cerr << "agentworks-server: --data DIR is required\n";
      return exit_usage;
    }
    return serve(opt);
  } catch (const Error& e) {
    std::cerr << "agentworks-server: " << e.what() << "\n";
    return exit_code(e.code());
  } catch (const std::exception& e) {
    std::cerr << "agentworks-server: " << e.what() << "\n";
    return exit_failure;
  }
}
