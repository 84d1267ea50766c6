#include "pg_floor.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "testing/pg_admin.hpp"
#include "testing/pg_cluster.hpp"
#include "testing/process.hpp"

namespace agentworks::bench {

namespace {

// The ids the run's data holds are [a-z0-9_-]; anything else would not be spliced into SQL.
bool plain(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

PgFloorRunner::PgFloorRunner(std::string url, std::filesystem::path dir, std::size_t sends_per_transaction,
                             std::size_t body_bytes)
    : url_(std::move(url)),
      dir_(std::move(dir)),
      sends_per_transaction_(sends_per_transaction),
      body_bytes_(body_bytes) {}

bool PgFloorRunner::prepare(std::string* error) {
  try {
    // The sending connection: the one that opened the run's conversations.
    const std::string conn = testing::pg_query_value(url_, "SELECT initiator_conn FROM conversations LIMIT 1");
    const std::string account =
        testing::pg_query_value(url_, "SELECT account_id FROM connections WHERE connection_id = '" + conn + "'");
    const std::string token_hash =
        testing::pg_query_value(url_, "SELECT token_hash FROM connections WHERE connection_id = '" + conn + "'");
    const auto agents = lines_of(testing::pg_query_value(
        url_, "SELECT string_agg(name_fold, E'\\n') FROM (SELECT name_fold FROM agents WHERE account_id = '" +
                  account + "' AND removed = 0 ORDER BY name_fold LIMIT " +
                  std::to_string(sends_per_transaction_) + ") a"));
    if (!plain(conn) || !plain(account) || !plain(token_hash) || agents.empty()) {
      *error = "the run's connection, account or agents were not found (send once before the floor)";
      return false;
    }
    std::ostringstream setup;
    setup << "DELETE FROM conversations WHERE account_id = 'acc_floor';";
    for (std::size_t i = 0; i < sends_per_transaction_; ++i) {
      setup << "INSERT INTO conversations(conversation_id, inbox_id, account_id, initiator_conn, target_agent_id,"
               " created_at, last_activity) VALUES('cnv_floor_" << i << "', 'inb_floor_" << i << "', 'acc_floor', '"
            << conn << "', 'agt_floor_" << i << "', 0, 0);";
    }
    testing::pg_execute(url_, setup.str());

    // The statements as the store sends them (server/store), with the same groups per round trip: the parameterless
    // commands travel with the next statement, a statement whose result is needed ends a round trip.
    const std::string body(body_bytes_, 'x');
    std::ostringstream script;
    script << "\\set now random(1700000000, 1800000000)\n";
    script << "\\startpipeline\nBEGIN;\nSELECT pg_advisory_xact_lock(107165732532992);\n";
    for (std::size_t i = 0; i < sends_per_transaction_; ++i) {
      const std::string agent = agents[i % agents.size()];
      const std::string n = std::to_string(i);
      script << "\\set a random(1, 1000000000000000)\n\\set b random(1, 1000000000000000)\n";
      script << "SAVEPOINT req;\n"
             << "SELECT c.connection_id, c.account_id, a.name, c.kind, c.agent_id, g.name, c.parent_id, c.label, "
                "c.created_at, c.revoked FROM connections c JOIN accounts a ON a.account_id = c.account_id LEFT JOIN "
                "agents g ON g.agent_id = c.agent_id WHERE c.token_hash = '" << token_hash << "';\n"
             << "\\endpipeline\n"
             << "SELECT agent_id, account_id, name, purpose, provider, created_at, communication, nudge, crew_id FROM "
                "agents WHERE account_id = '" << account << "' AND name_fold = '" << agent
             << "' AND removed = 0 AND crew_id IS NULL;\n"
             << "SELECT conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id, target_agent_id, "
                "created_at, last_activity, state, expired_at, next_inbox_seq, message_count, rate_window FROM "
                "conversations WHERE account_id = 'acc_floor' AND target_agent_id = 'agt_floor_" << n
             << "' AND state = 'open' AND (('' != '' AND initiator_agent_id = '') OR ('' = '' AND initiator_agent_id "
                "IS NULL AND initiator_conn = '" << conn << "')) ORDER BY created_at DESC, rowid DESC LIMIT 1;\n"
             << "\\startpipeline\n"
             << "UPDATE conversations SET last_activity = :now, next_inbox_seq = next_inbox_seq + 1, message_count = "
                "message_count + 1, rate_window = 'floor' WHERE conversation_id = 'cnv_floor_" << n << "';\n"
             << "INSERT INTO messages(message_id, account_id, conversation_id, inbox_id, inbox_seq, direction, "
                "sender_conn, sender_agent_id, sender_agent_name, recipient_agent_id, recipient_agent_name, "
                "recipient_conn, body, created_at, kind, call_id, call_status) VALUES('msg_floor_' || :a || '_' || :b, "
                "'acc_floor', 'cnv_floor_" << n << "', 'inb_floor_" << n << "', :b, 'to_agent', '" << conn
             << "', NULL, NULL, 'agt_floor_" << n << "', '" << agent << "', '', '" << body
             << "', :now, NULL, NULL, NULL) RETURNING seq;\n"
             << "\\endpipeline\n\\startpipeline\nRELEASE req;\n";
    }
    script << "SELECT pg_notify('agentworks_floor', 'floor');\nCOMMIT;\n\\endpipeline\n";
    script_ = dir_ / "pg-floor.sql";
    std::ofstream(script_) << script.str();
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

PgFloor PgFloorRunner::measure(double seconds) const {
  PgFloor out;
  try {
    const auto pgbench = testing::pg_server_bindir() / "pgbench";
    testing::RunOptions options;
    options.timeout = std::chrono::milliseconds(static_cast<long>(seconds * 1000) + 60'000);
    const auto r = testing::run_process({pgbench.string(), "--no-vacuum", "--protocol=prepared", "--client=1",
                                         "--jobs=1", "--time=" + std::to_string(static_cast<int>(seconds + 0.5)),
                                         "--file=" + script_.string(), url_},
                                        options);
    const auto at = r.out.find("tps = ");
    if (r.exit_code != 0 || at == std::string::npos) {
      out.error = "pgbench exited " + std::to_string(r.exit_code) + ": " + r.err.substr(0, 600) + r.out.substr(0, 600);
      return out;
    }
    out.transactions_per_second = std::stod(r.out.substr(at + 6));
    out.sends_per_second = out.transactions_per_second * static_cast<double>(sends_per_transaction_);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace agentworks::bench
