// The four agent CLIs agentworks serves (Claude Code, Codex, Cursor, Pi), in one table: each row holds what the
// programs otherwise spelled out per provider (its name on the wire and the command line, its home variable, what
// a person types in the chat, how the bridge pushes to it). Header-only and constexpr so the hook can include it
// at no cost; no allocation, no JSON.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace agentworks {

enum class Provider { claude, codex, cursor, pi };

// How the bridge pushes a message into a running chat of this provider without waiting for its Stop hook.
enum class NativeRoute { claude_inbox, codex_queue, pi_steer, none };

struct ProviderInfo {
  Provider provider;
  std::string_view name;          // on the bridge protocol, in hook command lines and in `--provider`
  std::string_view display_name;  // what a person calls the product ("Claude Code")
  std::string_view short_name;    // in an agent holder's description ("Claude")
  const char* home_variable;      // the provider's own config directory variable; nullptr: none
  std::string_view command_word;  // what a person types in the chat; Codex's TUI rejects unknown slash commands
  std::string_view executable;    // the provider CLI's program name ("" = agentworks never runs or finds it)
  std::string_view mcp_tool_prefix;  // how the provider names our plugin's MCP tools before the tool's own name
  NativeRoute native_route;
};

inline constexpr std::array<ProviderInfo, 4> kProviders = {{
    {Provider::claude, "claude", "Claude Code", "Claude", "CLAUDE_CONFIG_DIR", "/agentworks", "claude",
     "mcp__plugin_agentworks_agentworks__", NativeRoute::claude_inbox},
    {Provider::codex, "codex", "Codex", "Codex", "CODEX_HOME", "agentworks", "codex", "", NativeRoute::codex_queue},
    {Provider::cursor, "cursor", "Cursor", "Cursor", nullptr, "/agentworks", "", "", NativeRoute::none},
    // Pi has no MCP: its agentworks extension registers the same tools under their own names.
    {Provider::pi, "pi", "Pi", "Pi", "PI_CODING_AGENT_DIR", "/agentworks", "pi", "", NativeRoute::pi_steer},
}};

// The command word where the provider is not known (an empty or foreign provider name).
inline constexpr std::string_view kDefaultCommandWord = "/agentworks";

constexpr const ProviderInfo& provider_info(Provider provider) {
  for (const auto& row : kProviders) {
    if (row.provider == provider) return row;
  }
  return kProviders[0];  // unreachable: every enumerator has a row (checked below)
}

constexpr std::string_view provider_name(Provider provider) { return provider_info(provider).name; }

// The exact, lower-case name ("claude", "codex", "cursor", "pi"); nullopt for anything else.
constexpr std::optional<Provider> provider_from_name(std::string_view name) {
  for (const auto& row : kProviders) {
    if (row.name == name) return row.provider;
  }
  return std::nullopt;
}

// True when `name` (as the wire or a command line carries it) is exactly this provider's name.
constexpr bool is_provider(std::string_view name, Provider provider) { return name == provider_name(provider); }

// What a person types in a chat of the named provider ("/agentworks", or "agentworks" in Codex).
constexpr std::string_view command_word_for(std::string_view name) {
  const auto provider = provider_from_name(name);
  return provider ? provider_info(*provider).command_word : kDefaultCommandWord;
}

// The named provider's native route; none for an unknown name.
constexpr NativeRoute native_route_of(std::string_view name) {
  const auto provider = provider_from_name(name);
  return provider ? provider_info(*provider).native_route : NativeRoute::none;
}

// The route's name in `status` and delivery answers; "stop-hook" when the provider has no native route.
constexpr std::string_view route_name(NativeRoute route) {
  switch (route) {
    case NativeRoute::claude_inbox: return "claude-inbox";
    case NativeRoute::codex_queue: return "codex-queue";
    case NativeRoute::pi_steer: return "pi-steer";
    case NativeRoute::none: return "stop-hook";
  }
  return "stop-hook";
}

static_assert(kProviders[0].provider == Provider::claude && kProviders[1].provider == Provider::codex &&
                  kProviders[2].provider == Provider::cursor && kProviders[3].provider == Provider::pi,
              "one row per provider, in enumerator order");

}  // namespace agentworks
