// One Claude Code chat kept open across turns: `claude -p --input-format stream-json --output-format
// stream-json --verbose --session-id ID` fed one user message per turn (a `-p` run per turn would end the
// session each time, and SessionEnd takes the attachment offline). A turn ends with a {"type":"result"} line,
// also when a hook blocked the prompt.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "testing/piped_process.hpp"

namespace agentworks::e2e {

class ClaudeChat {
 public:
  ClaudeChat(const testing::EnvOverrides& env, const std::filesystem::path& project, const std::string& session_id,
             const std::filesystem::path& log_dir);
  // Sends `prompt` as the person's next message and waits for the turn's result line (false on timeout/exit).
  bool turn(const std::string& prompt, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Ends the chat (stdin closed: SessionEnd runs); true when it exited 0.
  bool end(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  const std::string& session_id() const { return session_id_; }
  std::string transcript() const;

 private:
  std::string session_id_;
  std::filesystem::path stderr_path_;
  std::unique_ptr<testing::PipedProcess> process_;
};

}  // namespace agentworks::e2e
