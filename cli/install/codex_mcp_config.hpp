// The agentworks MCP server in Codex's config.toml (checked with Codex 0.171.0): Codex starts MCP servers only
// from `[mcp_servers.NAME]` tables (the project's <project>/.codex/config.toml is read only in a trusted
// project). The installer owns one block of that file, between two marker comments, and touches nothing
// outside it: rewritten in place on reinstall, removed on uninstall.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/plugin_tools.hpp"

namespace agentworks::cli::install {


// The managed block: `[mcp_servers.agentworks]` running `cli_path mcp serve --provider codex`, and with
// `allow_tools` one `[mcp_servers.agentworks.tools.TOOL] approval_mode = "approve"` per plugin tool (the only
// approval mode of Codex 0.171.0 that runs the call without asking, also under approval_policy = "never").
std::string codex_mcp_block(const std::string& cli_path, bool allow_tools);

// `toml` with the managed block replaced by (or, when absent, appended as) `block`. Throws Error(conflict) when the
// file defines the agentworks server outside the block (the person's own table; two would be invalid TOML).
std::string with_codex_mcp_block(const std::string& toml, const std::string& block);
// `toml` without the managed block ("" left means nothing else was in the file).
std::string without_codex_mcp_block(const std::string& toml);

// Writes the block into `config` (created when missing). Returns {path, changed}.
nlohmann::json merge_codex_mcp_config(const std::filesystem::path& config, const std::string& cli_path,
                                      bool allow_tools);
// Removes the block; deletes the file when nothing else is left in it. Returns {path, changed, removed_file}.
nlohmann::json remove_codex_mcp_config(const std::filesystem::path& config);

}  // namespace agentworks::cli::install
