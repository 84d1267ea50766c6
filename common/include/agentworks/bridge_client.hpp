// A small client of the bridge's local socket (docs/protocol.md, "Local socket protocol (v1)"): one connection,
// one request, one answer, all within a deadline. Plain POSIX sockets (no libuv, no libcurl), so the CLI and
// the hook can both use it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/error.hpp"

namespace agentworks::bridge_client {

// An unreachable Error for a request that may have reached the bridge but got no answer: the deadline passed or
// the connection closed first. Its outcome is unknown, so a caller may retry it with the same submission id.
class NoAnswer : public Error {
 public:
  using Error::Error;
};

// paths::bridge_socket(): the same for every process of this user, whatever its environment.
std::filesystem::path socket_path();

// The message of the unreachable error, saying how to start the bridge.
std::string not_running_message();

// Sends `request` (an object with at least "op"; "id" is set here) and returns the bridge's success answer.
// Before sending, checks the socket's directory and the listener's uid (private_socket.hpp): Error(forbidden)
// when they are not this user's; nothing is sent then. Throws Error: unreachable when no bridge listens (no
// socket, connection refused), NoAnswer (unreachable) when it does not answer before `timeout` or closes the
// connection first; the bridge's own code when it answers with an error object; internal for a malformed answer.
nlohmann::json call(const nlohmann::json& request, std::chrono::milliseconds timeout = std::chrono::seconds(5),
                    const std::filesystem::path& socket = socket_path());

// The same, and gives up at once (NoAnswer) when `cancel_fd` becomes readable: a long wait (a parked
// channel_take) whose owner is stopping.
nlohmann::json call_cancellable(const nlohmann::json& request, std::chrono::milliseconds timeout, int cancel_fd,
                                const std::filesystem::path& socket = socket_path());

// ping with a short deadline: the answer when a bridge answers, nullopt when none does; throws Error(forbidden)
// when the socket's directory or listener is not this user's (see private_socket.hpp).
std::optional<nlohmann::json> ping(std::chrono::milliseconds timeout = std::chrono::seconds(2),
                                   const std::filesystem::path& socket = socket_path());

// Pure parts, unit-tested without a process.
// The request line: compact JSON with "id" set, ending in "\n".
std::string encode_request(const nlohmann::json& request, long long id);
// Checks a greeting line; throws Error(internal) when it is not the bridge's greeting.
void check_greeting(std::string_view line);
// For an answer line: nullopt when it answers another id; the success object; or throws Error with the answer's
// error code and message (an unknown code maps to internal), Error(internal) when the line is not JSON.
std::optional<nlohmann::json> match_answer(std::string_view line, long long id);

}  // namespace agentworks::bridge_client
