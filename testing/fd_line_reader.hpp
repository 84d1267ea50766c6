// Reading newline-terminated lines from a socket or pipe with a deadline: the bridge client and piped children
// (MCP, agent CLIs) both speak line-delimited JSON.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace agentworks::testing {

// Returns the next whole line in `buffer` (without its '\n'), reading more from `fd` into it until one is there;
// nullopt when the deadline passes or the peer closes. `transcript`, when given, receives every byte read.
std::optional<std::string> read_fd_line(int fd, std::string& buffer, std::chrono::steady_clock::time_point deadline,
                                        std::string* transcript = nullptr);

}  // namespace agentworks::testing
