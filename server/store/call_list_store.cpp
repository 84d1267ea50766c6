#include "store/call_list_store.hpp"

#include "agentworks/validation.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// c.rowid orders the calls by insertion on both engines (SQLite's implicit rowid; PostgreSQL's column of that
// name, schema version 2). The caller's agent is the one the call was made as (a chat's, a Crew agent's turn's),
// else its connection's. The crew filter matches a crew_id or a folded name; '' matches every Crew.
#define AW_CALL_SUMMARY_SELECT                                                                                  \
  "SELECT c.rowid, c.call_id, c.crew_id, w.name, c.function, c.status, c.progress, c.caller_account,"          \
  " c.caller_conn, g.name, c.submission_id, c.error_code, c.error_message, c.created_at, c.updated_at,"        \
  " c.finished_at FROM calls c JOIN crews w ON w.crew_id = c.crew_id"                                           \
  " LEFT JOIN connections k ON k.connection_id = c.caller_conn"                                                 \
  " LEFT JOIN agents g ON g.agent_id = COALESCE(c.caller_agent_id, k.agent_id) "

#define AW_CALL_SUMMARY_PAGE \
  " AND c.rowid < ? AND (? = '' OR w.crew_id = ? OR w.name_fold = ?) ORDER BY c.rowid DESC LIMIT ?"

CallSummary summary_row(db::Statement& s) {
  CallSummary c;
  c.list_key = s.int64(0);
  c.call_id = s.text(1);
  c.crew_id = s.text(2);
  c.crew_name = s.text(3);
  c.function = s.text(4);
  c.status = call_status_column(s.text(5));
  c.progress = s.text(6);
  c.caller_account = s.text(7);
  c.caller_conn = s.text(8);
  c.caller_agent_name = s.opt_text(9);
  c.submission_id = s.opt_text(10);
  c.error_code = s.opt_text(11);
  c.error_message = s.opt_text(12);
  c.created_at = s.int64(13);
  c.updated_at = s.int64(14);
  c.finished_at = s.opt_int64(15);
  return c;
}

}  // namespace

CallListPage list_calls(Store& store, const Connection& caller, const CallListQuery& query) {
  const std::int64_t before = query.before.value_or(INT64_MAX);
  const std::string name_fold = fold_name(query.crew);
  const int fetch = query.limit + 1;  // one more than the page says whether older calls remain
  CallListPage page;
  if (caller.is_login()) {
    Q q(store, AW_CALL_SUMMARY_SELECT
        "WHERE (c.caller_account = ? OR c.crew_id IN (SELECT crew_id FROM crews WHERE account_id = ?))"
        AW_CALL_SUMMARY_PAGE);
    q->bind(1, caller.account_id).bind(2, caller.account_id).bind(3, before).bind(4, query.crew);
    q->bind(5, query.crew).bind(6, name_fold).bind(7, fetch);
    while (q->step()) page.calls.push_back(summary_row(*q));
  } else {
    // A chat sees the calls its agent made (R-D1), whichever of its connections made them.
    Q q(store, AW_CALL_SUMMARY_SELECT "WHERE c.caller_agent_id = ?" AW_CALL_SUMMARY_PAGE);
    q->bind(1, caller.agent_id.value_or("")).bind(2, before).bind(3, query.crew).bind(4, query.crew).bind(5, name_fold);
    q->bind(6, fetch);
    while (q->step()) page.calls.push_back(summary_row(*q));
  }
  if (static_cast<int>(page.calls.size()) > query.limit) {
    page.calls.resize(static_cast<std::size_t>(query.limit));
    page.next_before = page.calls.back().list_key;
  }
  return page;
}

}  // namespace agentworks::server
