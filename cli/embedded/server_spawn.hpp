// Starting the embedded agentworks-server as a background daemon for `agentworks up`.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace agentworks::cli {

// $AGENTWORKS_SERVER_BIN, else agentworks-server next to this executable (/proc/self/exe), else in the
// build tree's server/ folder beside cli/, else on PATH. Error(not_found) saying what to install when absent.
std::filesystem::path find_server_binary();

struct SpawnedServer {
  pid_t pid = 0;
  std::string url;  // from the server's first stdout line, "listening on URL"
};

// Starts `binary --listen 127.0.0.1:PORT --data DATA` in its own session (fork + setsid), stdin from
// /dev/null, stderr appended to `log`, and reads its first stdout line through a pipe to learn the URL.
// Throws Error with the log's last lines when it exits or stays silent for `timeout`.
SpawnedServer spawn_server(const std::filesystem::path& binary, const std::filesystem::path& data, int port,
                           const std::filesystem::path& log, std::chrono::milliseconds timeout);

// Polls GET URL/v1/health until it answers ok or `timeout` passes.
bool wait_healthy(const std::string& url, std::chrono::milliseconds timeout);

// The last `lines` lines of a text file ("" when unreadable), for error messages.
std::string tail_of(const std::filesystem::path& file, int lines);

}  // namespace agentworks::cli
