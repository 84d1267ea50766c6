// Runs the continuation of an asynchronous op (a server answer arrived) with the same error conversion as the
// dispatcher: exceptions never escape into libuv or libcurl.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "agentworks/error.hpp"
#include "agentworks/sqlite.hpp"
#include "request/reply.hpp"
#include "services/journal_faults.hpp"

namespace agentworks::bridge {

// The error goes to `on_error(ErrorCode, const std::string& message)`.
template <typename OnError, typename Fn>
void guarded_to(JournalFaults& bridge, OnError&& on_error, Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    on_error(e.code(), std::string(e.what()));
  } catch (const sql::SqliteError& e) {
    bridge.journal_fatal("", e);
    on_error(ErrorCode::internal, std::string("journal error: ") + e.what());
  } catch (const std::exception& e) {
    on_error(ErrorCode::internal, std::string("internal error: ") + e.what());
  }
}

// The error is the reply's answer.
template <typename Fn>
void guarded(JournalFaults& bridge, const Reply& reply, Fn&& fn) {
  guarded_to(
      bridge, [&reply](ErrorCode code, const std::string& message) { reply.error(code, message); },
      std::forward<Fn>(fn));
}

}  // namespace agentworks::bridge
