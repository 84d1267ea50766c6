// The five messaging actions (ack, reply, send, read, peers) as bridge requests for the caller's exact attached
// session, and the text that tells an agent or a person what happened. Shared by the MCP tools and
// `agentworks bridge message …`, so both say the same thing.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/caller_identity.hpp"

namespace agentworks::cli::mcp {

// ack, reply and send: the ops that go through the bridge's durable outbox and carry a submission id.
bool is_outbox_op(const std::string& op);

// For an outbox op (or a function call) without "submission_id" in `fields`, mints one ("sub_…") and returns it;
// else returns the given one ("" for other ops). Minted once per call, so every retry of the call is stored once (R-B2).
std::string ensure_submission_id(const std::string& op, nlohmann::json& fields);

// Sends `request` with `send`. An outbox op whose request got no answer (bridge_client::NoAnswer) or met a full
// backlog (busy) is sent once more, unchanged (same submission id), so the retry learns the outcome instead of
// storing it twice; when that fails too, the error names the submission id to retry with.
using BridgeSend = std::function<nlohmann::json(const nlohmann::json& request)>;
nlohmann::json send_with_retry(const std::string& op, const nlohmann::json& request, const BridgeSend& send);

// Sends {"op": op, ...fields, ...session selector} to the bridge (send_with_retry, submission id ensured) and
// returns its success answer. Throws Error: the bridge's code, unreachable when no bridge runs (with how to
// start it).
nlohmann::json call_messaging_op(const std::string& op, nlohmann::json fields, const CallerIdentity& caller,
                                 const std::optional<std::string>& thread_id);

// The server's object a `function` op answered (R-D1: a functions list, a Call, a cancel, a reply), told the way
// the chat's tools name the next step.
std::string describe_function_answer(const nlohmann::json& server_object);

// The server's Wakeup or wakeup list (R-W1), told the way the chat's tools name the next step.
std::string describe_wakeup_answer(const nlohmann::json& server_object);

// One paragraph (or a list, for read and peers) describing a success answer of `op`.
std::string describe_answer(const std::string& op, const nlohmann::json& answer);

// The text for a failure: the error's message, plus what to do when the chat is not attached.
std::string describe_error(const std::string& code, const std::string& message);

}  // namespace agentworks::cli::mcp
