// The CLI's saved login (also read by the bridge): which server, which bearer token, and the public
// metadata of that connection. Stored as one JSON object, mode 0600, at paths::config_file() unless
// the caller passes another path (--config). docs/protocol.md has the connection fields.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks {

struct Config {
  std::string server_url;     // e.g. http://127.0.0.1:7787 (no trailing slash)
  std::string token;          // bearer token: secret, never printed
  std::string ca_file;        // CA bundle (PEM) that https to server_url is verified with; empty: the system store
  std::string connection_id;  // conn_… of the token
  std::string account_id;
  std::string account_name;
  std::string kind;           // "login" or "child" (from /v1/whoami)
  std::string agent_name;     // the bound agent of a child connection, else empty
  bool embedded = false;      // true when `agentworks up` made this login for its embedded server
  bool native = true;         // native push into attached chats (Claude's session inbox, Codex's queue)

  bool logged_in() const { return !server_url.empty() && !token.empty(); }
};

// JSON form, with exactly the field names above. from_json throws Error(bad_request) on a wrong field type.
nlohmann::json config_to_json(const Config& config);
Config config_from_json(const nlohmann::json& j);

// Parses a config file's text; throws Error(bad_request) naming `path` and how to fix it when the text is not JSON
// or not a config.
Config parse_config_text(const std::string& text, const std::filesystem::path& path);

// Reads the config at `path`. nullopt when the file does not exist. A file that exists but is unreadable
// or not a valid config throws Error(bad_request) naming the file and saying how to fix it.
std::optional<Config> load_config(const std::filesystem::path& path);

// Writes the config atomically with mode 0600 (parent directory created 0700 when missing).
void save_config(const std::filesystem::path& path, const Config& config);

// Removes the config file; false when there was none.
bool remove_config(const std::filesystem::path& path);

}  // namespace agentworks
