// `functions call-file --output PATH`: reads a call's file page after page (GET /v1/calls/{id}/file) and writes
// the bytes, text pages as given and binary pages decoded from content_base64.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/server_client.hpp"

namespace agentworks::cli::functions {

// Writes the file from `offset` to its end into `output` (created or truncated) and returns
// {"call_id","name","output","bytes"}. `page_limit` is each request's limit (the server's default when unset).
// A failed page leaves what was written so far and throws its Error.
nlohmann::json download_call_file(ServerClient& client, const std::string& call_id, const std::string& name,
                                  long long offset, std::optional<long long> page_limit,
                                  const std::filesystem::path& output);

// The bytes of one page: `content`, or `content_base64` decoded (Error internal when neither is usable).
std::string page_bytes(const nlohmann::json& page);

}  // namespace agentworks::cli::functions
