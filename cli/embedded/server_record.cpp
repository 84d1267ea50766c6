#include "embedded/server_record.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"

namespace agentworks::cli {
namespace fs = std::filesystem;
using nlohmann::json;

fs::path server_record_path() { return paths::server_data_dir() / "server.json"; }
fs::path server_log_path() { return paths::server_data_dir() / "server.log"; }
fs::path owner_token_path() { return paths::server_data_dir() / "owner.token"; }

std::optional<ServerRecord> read_server_record() {
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(server_record_path());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer() || !j.contains("url") ||
      !j["url"].is_string()) {
    return std::nullopt;
  }
  ServerRecord r;
  r.pid = static_cast<pid_t>(j["pid"].get<std::int64_t>());
  r.url = j["url"].get<std::string>();
  r.port = j.value("port", 0);
  r.started_at = j.value("started_at", std::int64_t{0});
  if (r.pid <= 0) return std::nullopt;
  return r;
}

void write_server_record(const ServerRecord& r) {
  json j = {{"pid", r.pid}, {"url", r.url}, {"port", r.port}, {"started_at", r.started_at}};
  write_private_file(server_record_path(), j.dump(2) + "\n");
}

void remove_server_record() {
  std::error_code ec;
  fs::remove(server_record_path(), ec);
}

}  // namespace agentworks::cli
