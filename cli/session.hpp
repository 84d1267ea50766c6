// What most commands need before talking to the server: the saved login and a client for it.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/config.hpp"
#include "agentworks/server_client.hpp"
#include "command.hpp"

namespace agentworks::cli {

// The saved login, or Error(unauthenticated) saying how to log in.
Config require_login(const Context& ctx);

// A client for the saved login's server and token.
ServerClient client_for(const Config& config);

// Copies GET /v1/whoami's public fields into `config` (never touches the token).
void apply_whoami(Config& config, const nlohmann::json& whoami);

// The person's native-push setting of the login saved at `path` (true when there is none or it is unreadable:
// the new login replaces an unreadable file anyway).
bool previous_native_setting(const std::filesystem::path& path);

// The public view of a login (no token), with the contract's field names.
nlohmann::json public_login_json(const Config& config);

}  // namespace agentworks::cli
