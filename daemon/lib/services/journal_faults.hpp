// How a flow hands over a journal error it caught (invariant 10): a fatal one (I/O, full disk, corruption) stops
// the bridge, a non-fatal one is logged or answered. The hub implements it; the flows see only this.
#pragma once

#include <string_view>

#include "agentworks/sqlite.hpp"

namespace agentworks::bridge {

class JournalFaults {
 public:
  virtual ~JournalFaults() = default;

  // A fatal error stops the bridge with "FATAL: journal failure <where>: ..." and true is returned; `where` says
  // what was being done ("while receiving"), empty for nothing. The op guards, which answer a non-fatal one as an
  // error, use this.
  virtual bool journal_fatal(std::string_view where, const sql::SqliteError& e) = 0;
  // journal_fatal(), and a non-fatal one is logged as "journal error <where>: ..." (the work goes on).
  virtual void journal_error(std::string_view where, const sql::SqliteError& e) = 0;

  // Runs `body`, the work of a libuv or libcurl callback, so that a journal error never escapes into the loop: it
  // goes to journal_error(). False when the body threw one.
  template <typename Body>
  bool guard_journal(std::string_view where, Body&& body) {
    try {
      body();
      return true;
    } catch (const sql::SqliteError& e) {
      journal_error(where, e);
      return false;
    }
  }
};

}  // namespace agentworks::bridge
