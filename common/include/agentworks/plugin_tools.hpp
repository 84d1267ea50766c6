// The tools of the plugin's MCP server (`agentworks mcp serve`): what the installer lets run without asking
// (`--allow-tools`), what the agent runner allows an execution, and what the server's tool list names. One list,
// so the three never disagree.
#pragma once

#include <array>
#include <cstddef>

namespace agentworks {

// Messaging as the attached chat (R-C1).
inline constexpr std::array<const char*, 6> kMessagingTools = {"agent_message_ack",  "agent_message_no_reply",
                                                               "agent_message_reply", "agent_message_send",
                                                               "agent_message_read", "agent_message_peers"};
// Crew functions: a granted chat's (R-D1) and an agent execution's on its call server (R-D4), in the order of
// the actions they stand for: list, call, status, reply, cancel.
inline constexpr std::array<const char*, 5> kFunctionTools = {"list_functions", "call_function", "get_function_call",
                                                              "reply_function_call", "cancel_function_call"};
inline constexpr std::array<const char*, 5> kFunctionActions = {"list", "call", "status", "reply", "cancel"};
// Durable wakeups of the chat's own agent (R-W1), in the order of their actions: schedule, cancel, list.
inline constexpr std::array<const char*, 3> kWakeupTools = {"schedule_message_wakeup", "cancel_message_wakeup",
                                                            "list_message_wakeups"};
inline constexpr std::array<const char*, 3> kWakeupActions = {"schedule", "cancel", "list"};
// Every tool of the plugin's MCP server, messaging first: what `--allow-tools` allows.
inline constexpr auto kPluginTools = [] {
  std::array<const char*, kMessagingTools.size() + kFunctionTools.size() + kWakeupTools.size()> all{};
  std::size_t i = 0;
  for (const char* tool : kMessagingTools) all[i++] = tool;
  for (const char* tool : kFunctionTools) all[i++] = tool;
  for (const char* tool : kWakeupTools) all[i++] = tool;
  return all;
}();

}  // namespace agentworks
