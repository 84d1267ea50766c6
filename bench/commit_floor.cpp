#include "commit_floor.hpp"

#include <chrono>
#include <exception>

#include "agentworks/sqlite.hpp"

namespace agentworks::bench {

namespace {

void remove_database(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ec);
}

}  // namespace

CommitFloor measure_commit_floor(const std::filesystem::path& dir, std::size_t rows_per_commit, double seconds,
                                 std::size_t row_bytes) {
  CommitFloor out;
  const auto file = dir / ("commit-floor-" + std::to_string(rows_per_commit) + ".db");
  remove_database(file);
  try {
    sql::Db db(file.string());  // WAL with synchronous=FULL, as the store would have it without the flush thread
    // A message-like row: the text and two indexed columns, as the server's messages table has.
    db.exec("CREATE TABLE m(seq INTEGER PRIMARY KEY, recipient TEXT, conversation TEXT, body TEXT);"
            "CREATE INDEX m_recipient ON m(recipient, seq);"
            "CREATE INDEX m_conversation ON m(conversation, seq);");
    sql::Stmt insert(db, "INSERT INTO m(recipient, conversation, body) VALUES(?1, ?2, ?3)");
    const std::string body(row_bytes, 'x');
    std::size_t rows = 0, commits = 0;
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      db.exec("BEGIN IMMEDIATE");
      for (std::size_t i = 0; i < rows_per_commit; ++i, ++rows) {
        const std::string recipient = "agent-" + std::to_string(rows % 100);
        insert.reset();
        insert.bind(1, recipient).bind(2, recipient).bind(3, body).run();
      }
      db.exec("COMMIT");
      ++commits;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.rows_per_second = static_cast<double>(rows) / elapsed;
    out.commits_per_second = static_cast<double>(commits) / elapsed;
  } catch (const std::exception& e) {
    out.error = file.string() + ": " + e.what();
  }
  remove_database(file);
  return out;
}

}  // namespace agentworks::bench
