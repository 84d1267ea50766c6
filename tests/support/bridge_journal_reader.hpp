// Read-only access to the bridge's journal.db for the bridge fault tests (crash, quota, cleanup): integrity
// check, message states, watermarks, counters. The bridge may be running (WAL allows a concurrent reader).
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentworks::testing {

// Read-only view of the bridge's journal.db; the bridge may be dead or alive (WAL allows a concurrent reader).
class JournalReader {
 public:
  explicit JournalReader(const std::filesystem::path& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw std::runtime_error("cannot open " + path.string() + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
  }
  JournalReader(const JournalReader&) = delete;
  JournalReader& operator=(const JournalReader&) = delete;
  ~JournalReader() { sqlite3_close(db_); }

  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string("bad query: ") + sqlite3_errmsg(db_));
    }
    std::vector<std::vector<std::string>> out;
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const auto* t = sqlite3_column_text(st, i);
        row.emplace_back(t != nullptr ? reinterpret_cast<const char*>(t) : "");
      }
      out.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    return out;
  }
  std::string integrity() {
    const auto r = rows("PRAGMA integrity_check");
    return r.empty() || r[0].empty() ? "no answer" : r[0][0];
  }
  std::map<std::string, std::string> message_states() {
    std::map<std::string, std::string> out;
    for (const auto& r : rows("SELECT message_id, state FROM messages")) out[r[0]] = r[1];
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

// The first column of the first row of `sql`, or "" when there is none.
inline std::string journal_scalar(const std::filesystem::path& path, const std::string& sql) {
  JournalReader j(path);
  const auto r = j.rows(sql);
  return r.empty() || r[0].empty() ? "" : r[0][0];
}

}  // namespace agentworks::testing
