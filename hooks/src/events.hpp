// What the hook does for each event: at most one bridge round trip, then the provider's output (or nothing).
// Never throws: every failure ends in "no output" (Stop, SessionStart, SessionEnd) or, for a typed command, a
// blocked prompt that says what went wrong.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/delivery_budget.hpp"
#include "agentworks/process_ancestry.hpp"
#include "hook_input.hpp"
#include "provider.hpp"

namespace agentworks::hook {

// Sends one request to the bridge and returns its success answer; throws agentworks::Error otherwise.
using BridgeCall = std::function<nlohmann::json(const nlohmann::json& request, std::chrono::milliseconds timeout)>;

inline constexpr std::chrono::milliseconds kDeliverTimeout{25'000};  // the bridge may ask the release check
inline constexpr std::chrono::milliseconds kCommandTimeout{25'000};  // attach registers on the server
inline constexpr std::chrono::milliseconds kLookupTimeout{2'000};
inline constexpr std::chrono::milliseconds kTurnStartTimeout{500};
inline constexpr std::chrono::milliseconds kOfflineTimeout{1'000};   // Claude gives SessionEnd 1.5 s in all
inline constexpr int kMaxChars = static_cast<int>(kDeliveryBudgetUnits);  // under Claude's 10,000-character cap

struct HookContext {
  Provider provider = Provider::claude;
  HookInput input;
  int max_continuations = 3;
  std::optional<std::string> config;  // absolute AGENTWORKS_CONFIG (R-H13)
  // The provider process (R-C6). Called only when the bridge is asked, so ordinary prompts cost nothing.
  std::function<std::optional<process::ProcessKey>()> process;
  // The provider's own home directory as the provider process sees it: CLAUDE_CONFIG_DIR for Claude Code,
  // CODEX_HOME for Codex (absolute, else unset). The bridge finds the session's native inbox or queue there.
  std::optional<std::string> provider_home;
  BridgeCall call;
};

// The output to print ("" = print nothing).
std::string handle_event(Event event, const HookContext& ctx);

// The real bridge: bridge_client::call on the user's socket.
BridgeCall socket_bridge_call();

}  // namespace agentworks::hook
