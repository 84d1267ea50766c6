#include "commit_floor.hpp"

#include <sqlite3.h>

#include <chrono>
#include <memory>

namespace agentworks::bench {

namespace {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

bool exec(sqlite3* db, const char* sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return true;
  *error = std::string(sql) + ": " + (message != nullptr ? message : "?");
  sqlite3_free(message);
  return false;
}

}  // namespace

CommitFloor measure_commit_floor(const std::filesystem::path& dir, std::size_t rows_per_commit, double seconds,
                                 std::size_t row_bytes) {
  CommitFloor out;
  const auto file = dir / ("commit-floor-" + std::to_string(rows_per_commit) + ".db");
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ec);
  sqlite3* raw = nullptr;
  if (sqlite3_open(file.c_str(), &raw) != SQLITE_OK) {
    out.error = "cannot open " + file.string();
    sqlite3_close(raw);
    return out;
  }
  const std::unique_ptr<sqlite3, DbCloser> db(raw);
  // A message-like row: the text and two indexed columns, as the server's messages table has.
  if (!exec(db.get(), "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                      "CREATE TABLE m(seq INTEGER PRIMARY KEY, recipient TEXT, conversation TEXT, body TEXT);"
                      "CREATE INDEX m_recipient ON m(recipient, seq);"
                      "CREATE INDEX m_conversation ON m(conversation, seq);",
            &out.error))
    return out;
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(), "INSERT INTO m(recipient, conversation, body) VALUES(?, ?, ?)", -1, &raw_stmt,
                         nullptr) != SQLITE_OK) {
    out.error = sqlite3_errmsg(db.get());
    return out;
  }
  const std::unique_ptr<sqlite3_stmt, StmtFinalizer> insert(raw_stmt);
  const std::string body(row_bytes, 'x');
  std::size_t rows = 0, commits = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (!exec(db.get(), "BEGIN IMMEDIATE", &out.error)) return out;
    for (std::size_t i = 0; i < rows_per_commit; ++i, ++rows) {
      const std::string recipient = "agent-" + std::to_string(rows % 100);
      sqlite3_bind_text(insert.get(), 1, recipient.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert.get(), 2, recipient.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert.get(), 3, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
      if (sqlite3_step(insert.get()) != SQLITE_DONE) {
        out.error = sqlite3_errmsg(db.get());
        return out;
      }
      sqlite3_reset(insert.get());
    }
    if (!exec(db.get(), "COMMIT", &out.error)) return out;
    ++commits;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.rows_per_second = static_cast<double>(rows) / elapsed;
  out.commits_per_second = static_cast<double>(commits) / elapsed;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ec);
  return out;
}

}  // namespace agentworks::bench
