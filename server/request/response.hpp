// What a handler answers: a JSON reply, or a parked long poll, or the start of an SSE stream.
// The dispatcher holds every answer until the group commit that covers it (http/batch.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "agentworks/error.hpp"
#include "store/store.hpp"

namespace agentworks::server {

// Serialises without throwing on invalid UTF-8 (replaced), so echoing user input can never crash a reply.
std::string dump(const nlohmann::json& j);

struct LongPoll {
  ReadTarget target;
  int limit = 100;
  int wait_seconds = 0;
  std::string after;  // cursor text echoed as next_cursor when nothing arrives
  std::string connection_id;
};

struct StreamStart {
  std::string attachment_id;
  std::string connection_id;
  std::int64_t after = 0;
};

// A parked function-call read (status, a call's wait for its outcome, an execution's wait for an answer):
// woken when the call changes, answered when `render` has something or the wait is over.
struct CallWait {
  std::string call_id;
  std::string connection_id;  // empty for an execution's own token
  int wait_seconds = 0;
  int status = 200;
  // The answer body; nullopt while there is nothing new and `final` is false.
  std::function<std::optional<std::string>(bool final)> render;
};

struct Response {
  int status = 200;
  std::string body;  // serialised JSON
  std::optional<LongPoll> long_poll;
  std::optional<StreamStart> stream;
  std::optional<CallWait> call_wait;
};

Response json_reply(int status, const nlohmann::json& body);
Response error_reply(ErrorCode code, const std::string& message);
std::string error_body(ErrorCode code, const std::string& message);

}  // namespace agentworks::server
