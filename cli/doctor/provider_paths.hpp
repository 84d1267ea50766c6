// Where `agentworks attach` puts each provider's files (cli/install/), for the doctor to read back: project scope
// first, then the person's own (global) scope.
#pragma once

#include <filesystem>
#include <vector>

namespace agentworks::cli::doctor {

// $CODEX_HOME, else ~/.codex.
std::filesystem::path codex_home();
// $CLAUDE_CONFIG_DIR, else ~/.claude: Claude Code's user settings directory.
std::filesystem::path claude_user_dir();
// The local marketplace the Claude installer materializes (its hooks file is the plugin's).
std::filesystem::path claude_marketplace_dir();

std::vector<std::filesystem::path> codex_hooks_files(const std::filesystem::path& project);
std::vector<std::filesystem::path> codex_mcp_configs(const std::filesystem::path& project);
std::vector<std::filesystem::path> cursor_hooks_files(const std::filesystem::path& project);
// The agentworks Pi extension in the project, then in the person's Pi agent directory ($PI_CODING_AGENT_DIR).
std::vector<std::filesystem::path> pi_extension_files(const std::filesystem::path& project);
// Claude Code settings that may enable the plugin: the project's shared and local files, then the user's.
std::vector<std::filesystem::path> claude_settings_files(const std::filesystem::path& project);

}  // namespace agentworks::cli::doctor
