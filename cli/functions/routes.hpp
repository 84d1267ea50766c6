// The Crew and function routes of the server (docs/protocol.md "Crews and functions") as paths, query strings and
// bodies, shared by the `crews …` / `functions …` commands and the tools of `mcp serve --full`, so both send the
// same requests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/server_client.hpp"

namespace agentworks::cli::functions {

inline constexpr int kMaxFilePageBytes = 2 * 1024 * 1024;
inline constexpr int kMaxMessageLimit = 500;
inline constexpr int kMaxEventLimit = 200;

// "/v1/crews/{crew}" (a Crew name or crw_ id), "/v1/calls/{id}".
std::string crew_path(std::string_view crew);
std::string call_path(std::string_view call_id);

// What a status read asks for; an unset field is left to the server's default.
struct StatusQuery {
  std::optional<long long> after;
  std::optional<long long> message_limit;
  std::optional<long long> after_event;
  std::optional<long long> event_limit;
  int wait_seconds = 0;
};
// Checks the ranges (Error bad_request naming `what` of each field) and returns "/v1/calls/{id}?…".
std::string status_path(std::string_view call_id, const StatusQuery& query);

// "/v1/calls/{id}/file?name=…&offset=…&limit=…"; offset >= 0, limit 1 to 2 MiB (Error bad_request).
std::string file_path(std::string_view call_id, std::string_view name, std::optional<long long> offset,
                      std::optional<long long> limit);

inline constexpr int kMaxCallListLimit = 100;

// "/v1/calls?limit=…&crew=…&before=…" (the recent-calls list); limit 1-100 (Error bad_request). The server checks
// the Crew name and the cursor.
std::string call_list_path(const std::optional<std::string>& crew, std::optional<long long> limit,
                           const std::optional<std::string>& before);

// The body of POST /v1/crews/{crew}/calls.
nlohmann::json call_body(const std::string& function, const nlohmann::json& arguments,
                         const std::optional<std::string>& submission_id, int wait_seconds);

// The body of POST /v1/calls/{id}/cancel: {} or {"wait_seconds": N} (0-25).
nlohmann::json cancel_body(int wait_seconds);

// The allowance of a Crew's agent functions as a body ({"claude_tools"?, "codex_sandbox"?}; the `allow` of
// POST /v1/crews and the body of POST /v1/crews/{crew}/allow). `claude_tools` is a comma-separated list ("" for
// none; entries are trimmed, an empty entry is Error usage naming `flag`); the server checks the values.
nlohmann::json allow_body(const std::optional<std::string>& claude_tools, const std::optional<std::string>& codex_sandbox,
                          std::string_view flag);

// A client whose request timeout covers a long poll of `wait_seconds` on any method (a call's wait is a POST).
ServerClient client_with_wait(const std::string& base_url, const std::string& token, int wait_seconds,
                              const std::string& ca_file = {});

// completed, failed, cancelled, interrupted: the only states that are an outcome (kOutcomeStatuses in words).
bool is_terminal(std::string_view status);
inline constexpr const char* kOutcomeStatuses = "completed, failed, cancelled or interrupted";

}  // namespace agentworks::cli::functions
