// The local socket's ONE command table and ONE dispatch choke point, so checks are never copied per handler: request
// parsing, validation, error conversion and timing happen in dispatch(), never in the handlers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/local_protocol.hpp"
#include "request/reply.hpp"

namespace agentworks::bridge {

class Bridge;
struct AttachmentRow;

inline constexpr int kLocalProtocolVersion = local_protocol::kVersion;
inline constexpr std::size_t kMaxRequestLineBytes = std::size_t{1} << 20;  // 1 MiB

// What dispatch() does once for an op, before its handler runs, when the op's row carries the flag (watchman's
// command flags, tmux's cmd_entry flags): the handlers never repeat these steps.
enum OpFlag : unsigned {
  // A request naming provider + session_id and its provider process registers that process for the session
  // (docs/protocol.md "Hook ops"). The messaging ops lack it: they only CLAIM a session for their process; the
  // claim is checked against the registrations (session_resolver.cpp, R-C7, R-C8) and must never create one.
  registers_process = 1U << 0,
  // A hook event: once its process is registered, it (re)binds the session's native route to that process, with
  // the request's provider_home when absolute (R-N1). Only with registers_process.
  binds_native = 1U << 1,
  // The op acts as the attached agent: the attachment it acts for is resolved (resolve_usable_attachment: provider +
  // session_id or the caller's process, fenced refused) before it runs and handed to it as `session`.
  claims_session = 1U << 2,
};

// A handler answers through `reply`, now or later (after a server round trip). It may throw agentworks::Error.
// `session` is the resolved attachment for a claims_session op, else nullptr.
using Handler = void (*)(Bridge& bridge, const nlohmann::json& request, const Reply& reply,
                         const AttachmentRow* session);

struct Command {
  std::string_view op;
  Handler handler;
  unsigned flags;  // OpFlag bits
  std::string_view help;
};

const std::vector<Command>& commands();
const Command* find_command(std::string_view op);

// The greeting line sent on connect: {"agentworks_bridge":1,"protocol":1,"capabilities":[...]}.
std::string greeting_line();

// Handles one request line; the answer (exactly one line) goes to `sink`, possibly later. `connected` tells
// whether the client is still there (empty: always).
void dispatch(Bridge& bridge, std::string_view line, const Reply::Transport& sink,
              const Reply::Connected& connected = nullptr);

}  // namespace agentworks::bridge
