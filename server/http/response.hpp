// What a handler answers: a JSON reply, or a parked long poll, or the start of an SSE stream.
// The dispatcher holds every answer until the group commit that covers it (http/batch.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "agentworks/error.hpp"
#include "store/store.hpp"

namespace agentworks::server {

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

struct Response {
  int status = 200;
  std::string body;  // serialised JSON
  std::optional<LongPoll> long_poll;
  std::optional<StreamStart> stream;
};

Response json_reply(int status, const nlohmann::json& body);
Response error_reply(ErrorCode code, const std::string& message);
std::string error_body(ErrorCode code, const std::string& message);

}  // namespace agentworks::server
