// Where agentworks reads and writes, from the XDG base directories (docs/architecture.md, "Paths").
// Tests isolate themselves by pointing HOME and XDG_* at a temp dir.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace agentworks::paths {

// $AGENTWORKS_CONFIG, else $XDG_CONFIG_HOME/agentworks/config.json, else ~/.config/agentworks/config.json.
std::filesystem::path config_file();
// $XDG_CONFIG_HOME/agentworks/server.env, else ~/.config/agentworks/server.env (whatever $AGENTWORKS_CONFIG says:
// systemd reads it as %E/agentworks/server.env): the port of this user's server unit, AGENTWORKS_PORT=N.
std::filesystem::path server_unit_env_file();
// Beside the config: one private record per Crew this computer serves (R-R1), read by `crews serve` and by the
// bridge, which runs a runner for each.
std::filesystem::path served_crews_dir();
// $XDG_STATE_HOME/agentworks, else ~/.local/state/agentworks (bridge journal, logs).
std::filesystem::path state_dir();
// ~/.local/state/agentworks/run (bridge socket and lock), whatever the XDG variables say: every process of the
// user finds the same bridge, even one an agent CLI started with a stripped environment.
std::filesystem::path runtime_dir();
// The bridge's socket: runtime_dir()/kBridgeSocketName. The bridge binds it, every client connects to it.
inline constexpr const char* kBridgeSocketName = "bridge.sock";
std::filesystem::path bridge_socket();
// $XDG_DATA_HOME/agentworks, else ~/.local/share/agentworks.
std::filesystem::path data_dir();
// data_dir()/server: the embedded server's --data directory.
std::filesystem::path server_data_dir();
// The user's home: $HOME when absolute (what the agent CLIs use too); else this uid's account entry, from the
// account database (NSS) in a program that called use_account_database(), otherwise from /etc/passwd read as a
// file; else "/". The hook never calls it: nothing in it needs NSS, so it links statically.
std::filesystem::path home_dir();
// The CLI, the bridge and the server call it first thing (common/src/account_database.cpp).
void use_account_database();
// The home of `uid` in text of /etc/passwd's format, or "" when no well-formed line names it.
std::string home_in_passwd(std::string_view passwd_text, unsigned uid);
// Set by use_account_database(): the account database's home of this uid, or "".
extern std::string (*account_database_home)();

}  // namespace agentworks::paths
