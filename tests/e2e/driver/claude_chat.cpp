#include "driver/claude_chat.hpp"

#include <nlohmann/json.hpp>

#include "driver/cli_locator.hpp"

namespace agentworks::e2e {

using nlohmann::json;

ClaudeChat::ClaudeChat(const testing::EnvOverrides& env, const std::filesystem::path& project,
                       const std::string& session_id, const std::filesystem::path& log_dir)
    : session_id_(session_id), stderr_path_(log_dir / ("claude-" + session_id + ".err")) {
  std::filesystem::create_directories(log_dir);
  process_ = std::make_unique<testing::PipedProcess>(
      std::vector<std::string>{claude_binary().string(), "-p", "--input-format", "stream-json", "--output-format",
                               "stream-json", "--verbose", "--session-id", session_id},
      env, project, stderr_path_);
}

bool ClaudeChat::turn(const std::string& prompt, std::chrono::milliseconds timeout) {
  const json message = {{"type", "user"}, {"message", {{"role", "user"}, {"content", prompt}}}};
  if (!process_->write_line(message.dump())) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto line = process_->read_line(deadline);
    if (!line) return false;
    const json event = json::parse(*line, nullptr, false);
    if (event.is_object() && event.value("type", "") == "result") return true;
  }
}

bool ClaudeChat::end(std::chrono::milliseconds timeout) {
  process_->close_stdin();
  const auto code = process_->wait_exit(timeout);
  return code && *code == 0;
}

std::string ClaudeChat::transcript() const {
  return "claude " + session_id_ + " stdout:\n" + process_->transcript() + "\nstderr:\n" +
         testing::read_file(stderr_path_);
}

}  // namespace agentworks::e2e
