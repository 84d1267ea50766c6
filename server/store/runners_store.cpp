#include "store/runners_store.hpp"

#include "agentworks/base64.hpp"
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "clock.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server {

namespace {

// The Crew's current runner connection, if any, is revoked (a new runner replaces it, or serving stops).
void revoke_runner(Store& store, const Connection& login, const Crew& crew) {
  if (!crew.runner_conn) return;
  if (const auto old = store.find_connection(*crew.runner_conn); old && !old->revoked)
    store.revoke_connection(login, *crew.runner_conn);
}

}  // namespace

NewConnection start_serving(Store& store, const Connection& login, const Crew& crew) {
  revoke_runner(store, login, crew);
  NewConnection out;
  out.token = "awt_" + random_hex(32);
  Connection& c = out.connection;
  c.connection_id = new_id("conn");
  c.account_id = login.account_id;
  c.account_name = login.account_name;
  c.kind = "runner";
  c.parent_id = login.connection_id;
  c.label = "runner of Crew " + crew.name + " on " + crew.runner_host.value_or("");
  c.created_at = now();
  {
    Q q(store,
        "INSERT INTO connections(connection_id, account_id, kind, parent_id, label, token_hash, created_at)"
        " VALUES(?,?,'runner',?,?,?,?)");
    q->bind(1, c.connection_id).bind(2, c.account_id).bind(3, login.connection_id).bind(4, c.label);
    q->bind(5, sha256_hex(out.token)).bind(6, c.created_at).run();
  }
  Q q(store, "UPDATE crews SET runner_conn = ?, runner_since = ?, runner_seen_at = NULL WHERE crew_id = ?");
  q->bind(1, c.connection_id).bind(2, c.created_at).bind(3, crew.crew_id).run();
  return out;
}

std::vector<std::string> stop_serving(Store& store, const Connection& login, const Crew& crew) {
  std::vector<std::string> ended;
  {
    Q q(store, "SELECT call_id FROM calls WHERE crew_id = ? AND status IN ('running', 'waiting_input')");
    q->bind(1, crew.crew_id);
    while (q->step()) ended.push_back(q->text(0));
  }
  for (const auto& id : ended) {
    CallOutcome o;
    o.status = CallStatus::cancelled;
    o.error_code = "cancelled";
    o.error_message = "its Crew's person stopped serving the Crew from their computer; its runner kills what is left";
    finish_call(store, id, o);
  }
  revoke_runner(store, login, crew);
  Q q(store, "UPDATE crews SET runner_conn = NULL, runner_since = ? WHERE crew_id = ?");
  q->bind(1, now()).bind(2, crew.crew_id).run();
  return ended;
}

Crew runner_crew(Store& store, const Connection& caller, const std::string& name_or_id) {
  const auto crew = crew_for_caller(store, caller, name_or_id);
  if (!crew || crew->account_id != caller.account_id || !crew->served() || crew->runner_conn != caller.connection_id)
    throw Error(ErrorCode::not_found, "no Crew '" + name_or_id + "' served by this runner");
  return *crew;
}

void runner_seen(Store& store, const std::string& crew_id) {
  Q q(store, "UPDATE crews SET runner_seen_at = ? WHERE crew_id = ?");
  q->bind(1, now()).bind(2, crew_id).run();
}

bool runner_online(Store& store, const Crew& crew) {
  return crew.runner_conn && crew.runner_seen_at > 0 &&
         now() - crew.runner_seen_at <= store.limits().call_lease_seconds;
}

std::optional<ClaimedCall> claim_call(Store& store, const Crew& crew, const Connection& runner) {
  std::optional<std::string> id;
  {
    Q q(store,
        "SELECT call_id FROM calls WHERE crew_id = ? AND served_by = '' AND status = 'running'"
        " ORDER BY created_at, call_id LIMIT 1");
    q->bind(1, crew.crew_id);
    if (q->step()) id = q->text(0);
  }
  if (!id) return std::nullopt;
  ClaimedCall out;
  out.token = "awc_" + random_hex(32);
  {
    // Conditional: of two claims (two replicas' requests) one changes the row.
    Q q(store,
        "UPDATE calls SET served_by = ?, token_hash = ?, lease_expires_at = ? WHERE call_id = ? AND served_by = ''"
        " AND status = 'running'");
    q->bind(1, runner.connection_id).bind(2, sha256_hex(out.token));
    q->bind(3, now() + store.limits().call_lease_seconds).bind(4, *id).run();
    if (store.sql_changes() == 0) return std::nullopt;
  }
  add_call_event(store, *id, "claimed", crew.runner_host.value_or(""));
  out.call = *call_by_id(store, *id);
  return out;
}

CallRow held_call(Store& store, const Crew& crew, const Connection& runner, const std::string& call_id) {
  const auto call = call_by_id(store, call_id);
  if (!call || call->crew_id != crew.crew_id || call->served_by != runner.connection_id)
    throw Error(ErrorCode::not_found, "no call '" + call_id + "' held by this runner");
  return *call;
}

void renew_served_lease(Store& store, const std::string& call_id) {
  Q q(store, "UPDATE calls SET lease_expires_at = ? WHERE call_id = ?");
  q->bind(1, now() + store.limits().call_lease_seconds).bind(2, call_id).run();
}

Heartbeat runner_heartbeat(Store& store, const Crew& crew, const Connection& runner,
                           const std::vector<std::string>& call_ids) {
  Heartbeat out;
  for (const auto& id : call_ids) {
    const auto call = call_by_id(store, id);
    if (!call || call->crew_id != crew.crew_id || call->served_by != runner.connection_id || !call->open()) {
      out.settled.push_back(id);
      continue;
    }
    renew_served_lease(store, id);
    if (call->cancel_requested_at) out.cancel.push_back(id);
  }
  return out;
}

void store_file_piece(Store& store, const std::string& call_id, const StoredFile& file, std::int64_t offset,
                      std::string_view bytes) {
  if (offset == 0) {
    for (const char* sql : {"DELETE FROM call_file_chunks WHERE call_id = ? AND name = ?",
                            "DELETE FROM call_files WHERE call_id = ? AND name = ?"}) {
      Q q(store, sql);
      q->bind(1, call_id).bind(2, file.name).run();
    }
    Q q(store,
        "INSERT INTO call_files(call_id, name, text, size, stored, modified, received) VALUES(?, ?, ?, ?, ?, ?, 0)");
    q->bind(1, call_id).bind(2, file.name).bind(3, file.text ? 1 : 0).bind(4, file.size);
    q->bind(5, file.stored ? 1 : 0).bind(6, file.modified).run();
  }
  std::int64_t received = -1;
  bool stored = false;
  std::int64_t size = 0;
  {
    Q q(store, "SELECT received, stored, size FROM call_files WHERE call_id = ? AND name = ?");
    q->bind(1, call_id).bind(2, file.name);
    if (q->step()) {
      received = q->int64(0);
      stored = q->int64(1) != 0;
      size = q->int64(2);
    }
  }
  if (received != offset)
    throw Error(ErrorCode::conflict, "file '" + file.name + "' continues at " + std::to_string(received) +
                                         ", not at " + std::to_string(offset) + "; send it again from 0");
  if (bytes.empty()) return;
  if (!stored) throw Error(ErrorCode::bad_request, "file '" + file.name + "' is listed as not stored: send no bytes");
  if (offset + static_cast<std::int64_t>(bytes.size()) > size)
    throw Error(ErrorCode::bad_request, "file '" + file.name + "' gets more bytes than its size");
  {
    Q q(store, "INSERT INTO call_file_chunks(call_id, name, start_at, data) VALUES(?, ?, ?, ?)");
    q->bind(1, call_id).bind(2, file.name).bind(3, offset).bind(4, base64_encode(bytes)).run();
  }
  Q q(store, "UPDATE call_files SET received = ? WHERE call_id = ? AND name = ?");
  q->bind(1, offset + static_cast<std::int64_t>(bytes.size())).bind(2, call_id).bind(3, file.name).run();
}

std::vector<StoredFile> stored_files(Store& store, const std::string& call_id) {
  std::vector<StoredFile> out;
  Q q(store, "SELECT name, size, text, modified, stored, received FROM call_files WHERE call_id = ? ORDER BY name");
  q->bind(1, call_id);
  while (q->step())
    out.push_back(StoredFile{q->text(0), q->int64(1), q->int64(2) != 0, q->int64(3), q->int64(4) != 0, q->int64(5)});
  return out;
}

std::string stored_file_bytes(Store& store, const std::string& call_id, const std::string& name, std::int64_t offset,
                              std::int64_t limit, std::int64_t& size) {
  {
    Q q(store, "SELECT size, stored, received FROM call_files WHERE call_id = ? AND name = ?");
    q->bind(1, call_id).bind(2, name);
    if (!q->step()) throw Error(ErrorCode::not_found, "no file '" + name + "' in this call's files");
    if (q->int64(1) == 0)
      throw Error(ErrorCode::not_found, "file '" + name + "' (" + std::to_string(q->int64(0)) +
                                            " bytes) was over the server's upload limit: it stays on the computer "
                                            "that served the call");
    size = std::min(q->int64(0), q->int64(2));
  }
  std::string out;
  offset = std::min(offset, size);
  const std::int64_t end = std::min(size, offset + limit);
  Q q(store,
      "SELECT start_at, data FROM call_file_chunks WHERE call_id = ? AND name = ? AND start_at < ? ORDER BY start_at");
  q->bind(1, call_id).bind(2, name).bind(3, end);
  while (q->step()) {
    const std::int64_t start = q->int64(0);
    const auto bytes = base64_decode(q->text(1));
    if (!bytes) throw Error(ErrorCode::internal, "a stored piece of '" + name + "' is damaged");
    const std::int64_t stop = start + static_cast<std::int64_t>(bytes->size());
    if (stop <= offset) continue;
    const std::int64_t from = std::max(offset, start);
    const std::int64_t to = std::min(end, stop);
    out.append(*bytes, static_cast<std::size_t>(from - start), static_cast<std::size_t>(to - from));
  }
  return out;
}

int drop_stored_files(Store& store, std::int64_t before) {
  std::vector<std::string> ids;
  {
    Q q(store,
        "SELECT c.call_id FROM calls c WHERE c.served_by IS NOT NULL AND c.finished_at IS NOT NULL"
        " AND c.finished_at < ? AND c.files_expired = 0 AND EXISTS (SELECT 1 FROM call_files f WHERE f.call_id ="
        " c.call_id)");
    q->bind(1, before);
    while (q->step()) ids.push_back(q->text(0));
  }
  for (const auto& id : ids) {
    for (const char* sql : {"DELETE FROM call_file_chunks WHERE call_id = ?", "DELETE FROM call_files WHERE call_id = ?"}) {
      Q q(store, sql);
      q->bind(1, id).run();
    }
    mark_files_gone(store, id, true);
  }
  return static_cast<int>(ids.size());
}

int unclaimed_calls(Store& store, const std::string& crew_id) {
  Q q(store, "SELECT COUNT(*) FROM calls WHERE crew_id = ? AND served_by = '' AND status = 'running'");
  q->bind(1, crew_id);
  q->step();
  return static_cast<int>(q->int64(0));
}

}  // namespace agentworks::server
