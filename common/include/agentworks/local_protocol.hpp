// The local socket protocol's version and op names: the one list the hook, the CLI and the bridge's command table
// (daemon/lib/ops/command_table.cpp) all name ops by (docs/protocol.md "Local ops"). Only <string_view>.
#pragma once

#include <string_view>

namespace agentworks::local_protocol {

// The version in the bridge's greeting, `help` and `status` answers.
inline constexpr int kVersion = 1;

namespace op {
inline constexpr std::string_view ping = "ping";
inline constexpr std::string_view help = "help";
inline constexpr std::string_view status = "status";
inline constexpr std::string_view lookup = "lookup";
inline constexpr std::string_view attach = "attach";
inline constexpr std::string_view detach = "detach";
inline constexpr std::string_view offline = "offline";
inline constexpr std::string_view resume = "resume";
inline constexpr std::string_view take = "take";
inline constexpr std::string_view ack = "ack";
inline constexpr std::string_view no_reply = "no_reply";
inline constexpr std::string_view reply = "reply";
inline constexpr std::string_view send = "send";
inline constexpr std::string_view read = "read";
inline constexpr std::string_view channel_take = "channel_take";
inline constexpr std::string_view steer_wait = "steer_wait";
inline constexpr std::string_view steer_result = "steer_result";
inline constexpr std::string_view peers = "peers";
inline constexpr std::string_view function = "function";
inline constexpr std::string_view wakeup = "wakeup";
inline constexpr std::string_view deliver = "deliver";
inline constexpr std::string_view turn_start = "turn_start";
inline constexpr std::string_view command = "command";
inline constexpr std::string_view activity = "activity";
inline constexpr std::string_view cleanup = "cleanup";
inline constexpr std::string_view shutdown = "shutdown";
}  // namespace op

}  // namespace agentworks::local_protocol
