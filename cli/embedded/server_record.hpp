// DATA/server.json: which embedded server `agentworks up` started (pid and URL), so that `down` and
// `status` find it later. DATA is paths::server_data_dir().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace agentworks::cli {

struct ServerRecord {
  pid_t pid = 0;
  std::string url;
  int port = 0;
  std::int64_t started_at = 0;
};

std::filesystem::path server_record_path();   // DATA/server.json
std::filesystem::path server_log_path();      // DATA/server.log
std::filesystem::path owner_token_path();     // DATA/owner.token (written by the server)

// nullopt when there is no record or it is unreadable (a broken record is treated as stale).
std::optional<ServerRecord> read_server_record();
void write_server_record(const ServerRecord& record);
void remove_server_record();

}  // namespace agentworks::cli
