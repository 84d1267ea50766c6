// Where agentworks reads and writes, from the XDG base directories (docs/architecture.md, "Paths").
// Tests isolate themselves by pointing HOME and XDG_* at a temp dir.
#pragma once

#include <filesystem>

namespace agentworks::paths {

// $AGENTWORKS_CONFIG, else $XDG_CONFIG_HOME/agentworks/config.json, else ~/.config/agentworks/config.json.
std::filesystem::path config_file();
// $XDG_STATE_HOME/agentworks, else ~/.local/state/agentworks (bridge journal, logs).
std::filesystem::path state_dir();
// ~/.local/state/agentworks/run (bridge socket and lock), whatever the XDG variables say: every process of the
// user finds the same bridge, even one an agent CLI started with a stripped environment.
std::filesystem::path runtime_dir();
// $XDG_DATA_HOME/agentworks, else ~/.local/share/agentworks.
std::filesystem::path data_dir();
// data_dir()/server: the embedded server's --data directory.
std::filesystem::path server_data_dir();
// The user's home ($HOME, else the passwd entry).
std::filesystem::path home_dir();

}  // namespace agentworks::paths
