// Runs the continuation of an asynchronous op (a server answer arrived) with the same error conversion as the
// dispatcher: exceptions never escape into libuv or libcurl.
#pragma once

#include <exception>
#include <string>

#include "agentworks/error.hpp"
#include "agentworks/sqlite.hpp"
#include "bridge.hpp"
#include "request/reply.hpp"

namespace agentworks::bridge {

template <typename Fn>
void guarded(Bridge& bridge, const Reply& reply, Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    reply.error(e.code(), e.what());
  } catch (const sql::SqliteError& e) {
    if (e.fatal()) bridge.fatal(std::string("journal failure: ") + e.what());
    reply.error(ErrorCode::internal, std::string("journal error: ") + e.what());
  } catch (const std::exception& e) {
    reply.error(ErrorCode::internal, std::string("internal error: ") + e.what());
  }
}

}  // namespace agentworks::bridge
