#include "driver/app_server_client.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace agentworks::e2e {

using nlohmann::json;

AppServerClient::AppServerClient(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                                 const std::filesystem::path& cwd)
    : process_(std::make_unique<testing::PipedProcess>(std::vector<std::string>{codex.string(), "app-server"}, env,
                                                       cwd, "/dev/null")) {
  call("initialize", {{"clientInfo", {{"name", "agentworks-e2e"}, {"version", "1"}}}});
  process_->write_line(json{{"method", "initialized"}}.dump());
}

json AppServerClient::call(const std::string& method, const json& params, std::chrono::milliseconds timeout) {
  const int id = ++next_id_;
  if (!process_->write_line(json{{"id", id}, {"method", method}, {"params", params}}.dump())) {
    throw std::runtime_error("codex app-server closed its stdin");
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto line = process_->read_line(deadline);
    if (!line) throw std::runtime_error("codex app-server did not answer " + method);
    const json message = json::parse(*line, nullptr, false);
    if (!message.is_object() || !message.contains("id") || message["id"] != id) continue;  // notifications
    if (message.contains("error")) throw std::runtime_error(method + " failed: " + message["error"].dump());
    return message.value("result", json::object());
  }
}

}  // namespace agentworks::e2e
