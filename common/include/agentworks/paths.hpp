// Where agentworks reads and writes, from the XDG base directories (docs/architecture.md, "Paths").
// Tests isolate themselves by pointing HOME and XDG_* at a temp dir.
#pragma once

#include <filesystem>

namespace agentworks::paths {

// $AGENTWORKS_CONFIG, else $XDG_CONFIG_HOME/agentworks/config.json, else ~/.config/agentworks/config.json.
std::filesystem::path config_file();
// $XDG_STATE_HOME/agentworks, else ~/.local/state/agentworks (bridge journal, logs).
std::filesystem::path state_dir();
// $XDG_RUNTIME_DIR/agentworks, else /tmp/agentworks-<uid> (bridge socket and lock).
std::filesystem::path runtime_dir();
// $XDG_DATA_HOME/agentworks, else ~/.local/share/agentworks.
std::filesystem::path data_dir();
// data_dir()/server: the embedded server's --data directory.
std::filesystem::path server_data_dir();
// The user's home ($HOME, else the passwd entry).
std::filesystem::path home_dir();

}  // namespace agentworks::paths
