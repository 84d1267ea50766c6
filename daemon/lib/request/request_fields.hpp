// Typed access to local-socket request fields. Every problem throws Error(bad_request) naming the field, so
// handlers stay short and the dispatcher turns it into an error object.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/process_ancestry.hpp"

namespace agentworks::bridge {

std::string required_string(const nlohmann::json& req, const char* field, std::size_t max_bytes = 4096);
std::optional<std::string> optional_string(const nlohmann::json& req, const char* field,
                                           std::size_t max_bytes = 4096);
std::int64_t optional_int(const nlohmann::json& req, const char* field, std::int64_t fallback, std::int64_t min,
                          std::int64_t max);

// The exact provider session a request is about (R-H12): provider is 1-32 of [a-z0-9_-], session_id is 1-200
// printable ASCII characters.
struct SessionKey {
  std::string provider;
  std::string session_id;
};
SessionKey session_key(const nlohmann::json& req);

bool optional_bool(const nlohmann::json& req, const char* field, bool fallback);

// An op with actions (function, wakeup) takes only its session selector, `action` and the action's own fields:
// anything else is a mistake the agent should hear about (bad_request naming the field).
void only_action_fields(const nlohmann::json& req, std::initializer_list<const char*> allowed);

// The hook's provider process, `process: {"pid": N, "start": "T"}` (pid > 0, start 1-32 decimal digits);
// nullopt when absent.
std::optional<process::ProcessKey> optional_process(const nlohmann::json& req);

}  // namespace agentworks::bridge
