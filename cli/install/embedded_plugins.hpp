// The plugin templates of plugins/, compiled into the CLI (cmake/embed_plugins.cmake), so the installer works
// wherever the binary lives. Paths are relative to plugins/, e.g. "claude/hooks/hooks.json".
#pragma once

#include <span>
#include <string_view>

namespace agentworks::cli::install {

struct EmbeddedFile {
  std::string_view path;
  std::string_view content;
};

std::span<const EmbeddedFile> embedded_plugin_files();

// The content of one embedded file; throws Error(internal) when the build left it out.
std::string_view embedded_plugin_file(std::string_view path);

// The placeholder in the templates that the installer replaces with the hook's absolute path.
inline constexpr std::string_view kHookPlaceholder = "@AGENTWORKS_HOOK@";
// The placeholder replaced with the absolute path of the agentworks CLI (MCP server commands; not shell-quoted:
// MCP clients execute the command directly).
inline constexpr std::string_view kCliPlaceholder = "@AGENTWORKS_BIN@";

}  // namespace agentworks::cli::install
