// The local socket's ONE command table and ONE dispatch choke point, so checks are never copied per handler: request
// parsing, validation, error conversion and timing happen in dispatch(), never in the handlers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "request/reply.hpp"

namespace agentworks::bridge {

class Bridge;

inline constexpr int kLocalProtocolVersion = 1;
inline constexpr std::size_t kMaxRequestLineBytes = std::size_t{1} << 20;  // 1 MiB

// A handler answers through `reply`, now or later (after a server round trip). It may throw agentworks::Error.
using Handler = void (*)(Bridge& bridge, const nlohmann::json& request, const Reply& reply);

struct Command {
  std::string_view op;
  Handler handler;
  std::string_view help;
};

const std::vector<Command>& commands();
const Command* find_command(std::string_view op);

// The greeting line sent on connect: {"agentworks_bridge":1,"protocol":1,"capabilities":[...]}.
std::string greeting_line();

// Handles one request line; the answer (exactly one line) goes to `sink`, possibly later.
void dispatch(Bridge& bridge, std::string_view line, const Reply::Transport& sink);

}  // namespace agentworks::bridge
