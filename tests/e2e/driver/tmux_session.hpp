// An interactive CLI (Claude Code or Codex TUI) running in a detached tmux session on a private socket, driven
// like a person: type text, press keys, read the screen. The destructor kills the private tmux server.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "testing/process.hpp"

namespace agentworks::e2e {

bool tmux_available();

class TmuxSession {
 public:
  // Starts `argv` in `cwd` with `env` in a 200x50 window. Throws when tmux fails.
  TmuxSession(const std::filesystem::path& socket_dir, const testing::EnvOverrides& env,
              const std::filesystem::path& cwd, const std::vector<std::string>& argv);
  TmuxSession(const TmuxSession&) = delete;
  TmuxSession& operator=(const TmuxSession&) = delete;
  ~TmuxSession();

  void type(const std::string& text);   // literal keystrokes
  void press(const std::string& key);   // a tmux key name: Enter, Escape, C-c, ...
  // Backspace `count` times: empties an input box that a TUI refilled (Claude Code puts a blocked prompt back).
  void erase(int count = 120);
  std::string screen();                 // the visible pane, plain text
  // Polls the screen until it contains `text`; false after the timeout.
  bool wait_screen(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Types `text` and Enter like the person once it shows, then waits (60 s each) for `done` and for `ready` on
  // the screen again (the TUI's input box is back).
  bool say(const std::string& text, const std::function<bool()>& done, const std::string& ready);
  bool running();  // the pane's program has not exited

 private:
  testing::ProcessResult tmux(const std::vector<std::string>& args);
  std::string socket_;
  testing::EnvOverrides env_;
};

}  // namespace agentworks::e2e
