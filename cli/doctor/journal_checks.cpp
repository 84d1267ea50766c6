// The bridge journal (paths::state_dir()/journal.db), opened read-only so the check changes nothing even while
// the bridge runs: `PRAGMA quick_check`, and the cached message bodies against the bridge's quota
// (journal_quota.hpp, R-B9; over it, new messages wait on the server instead of in the journal).
#include <sqlite3.h>

#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "agentworks/journal_quota.hpp"
#include "agentworks/paths.hpp"
#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
namespace {

// Warn when this share of the quota is used: the next burst may be held back on the server.
constexpr double kQuotaWarnShare = 0.8;

fs::path journal_path() { return paths::state_dir() / "journal.db"; }

class ReadOnlyDb {
 public:
  explicit ReadOnlyDb(const fs::path& path) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) error_ = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    if (db_ != nullptr) sqlite3_busy_timeout(db_, 2000);
  }
  ~ReadOnlyDb() { sqlite3_close(db_); }
  ReadOnlyDb(const ReadOnlyDb&) = delete;
  ReadOnlyDb& operator=(const ReadOnlyDb&) = delete;

  const std::string& error() const { return error_; }
  // The first column of every row of `sql` as text; sets error() on failure.
  std::vector<std::string> rows(const char* sql) {
    std::vector<std::string> out;
    if (!error_.empty()) return out;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return out;
    }
    int rc = SQLITE_OK;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      out.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
  std::string error_;
};

std::string mib(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

std::vector<Finding> check_journal_integrity(State& /*state*/) {
  const fs::path path = journal_path();
  std::error_code ec;
  if (!fs::exists(path, ec)) return one(Status::ok, "no journal yet at " + path.string() + " (no bridge ran)");
  ReadOnlyDb db(path);
  const auto result = db.rows("PRAGMA quick_check");
  if (!db.error().empty()) {
    return one(Status::fail, "cannot check " + path.string() + ": " + db.error(),
               "agentworks daemon stop && mv " + path.string() + " " + path.string() +
                   ".broken && agentworks daemon start");
  }
  if (result.size() == 1 && result.front() == "ok") return one(Status::ok, path.string() + ": quick_check ok");
  return one(Status::fail, path.string() + ": quick_check found " + (result.empty() ? "nothing" : result.front()),
             "agentworks daemon stop && mv " + path.string() + " " + path.string() +
                 ".broken && agentworks daemon start (waiting messages are fetched from the server again)");
}

std::vector<Finding> check_journal_quota(State& /*state*/) {
  const fs::path path = journal_path();
  std::error_code ec;
  if (!fs::exists(path, ec)) return one(Status::ok, "no journal yet at " + path.string());
  const auto file_bytes = static_cast<std::int64_t>(fs::file_size(path, ec));
  ReadOnlyDb db(path);
  const auto rows = db.rows("SELECT coalesce(sum(size), 0) FROM messages WHERE body IS NOT NULL");
  if (!db.error().empty() || rows.empty()) {
    return one(Status::warn, "cannot sum the cached bodies in " + path.string() + ": " + db.error(),
               "agentworks daemon status");
  }
  const std::int64_t cached = std::stoll(rows.front());
  const std::string found = "cached message bodies " + mib(cached) + " of the " + mib(kJournalMaxTotalBodyBytes) +
                            " quota (file " + mib(ec ? 0 : file_bytes) + ")";
  if (static_cast<double>(cached) >= kQuotaWarnShare * static_cast<double>(kJournalMaxTotalBodyBytes)) {
    return one(Status::warn, found + "; over it new messages wait on the server",
               "agentworks status --agents (let the chats take their waiting messages, or detach unused ones)");
  }
  return one(Status::ok, found);
}

}  // namespace agentworks::cli::doctor
