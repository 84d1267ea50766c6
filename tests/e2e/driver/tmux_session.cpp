#include "driver/tmux_session.hpp"

#include <stdexcept>

#include "testing/wait.hpp"

namespace agentworks::e2e {
namespace {

const char* kTmux = "/usr/bin/tmux";

}  // namespace

bool tmux_available() { return std::filesystem::exists(kTmux); }

TmuxSession::TmuxSession(const std::filesystem::path& socket_dir, const testing::EnvOverrides& env,
                         const std::filesystem::path& cwd, const std::vector<std::string>& argv)
    : socket_((socket_dir / "tmux.sock").string()), env_(env) {
  env_["TMUX"] = std::nullopt;
  env_["TERM"] = "xterm-256color";
  std::vector<std::string> args{"new-session", "-d", "-x", "200", "-y", "50", "-c", cwd.string(), "--"};
  args.insert(args.end(), argv.begin(), argv.end());
  const auto r = tmux(args);
  if (r.exit_code != 0) throw std::runtime_error("tmux new-session failed: " + r.err);
  tmux({"set-option", "-g", "remain-on-exit", "on"});
}

TmuxSession::~TmuxSession() { tmux({"kill-server"}); }

testing::ProcessResult TmuxSession::tmux(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kTmux, "-S", socket_, "-f", "/dev/null"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::RunOptions options;
  options.env = env_;
  options.timeout = std::chrono::seconds(10);
  return testing::run_process(argv, options);
}

void TmuxSession::type(const std::string& text) { tmux({"send-keys", "-l", "--", text}); }
void TmuxSession::press(const std::string& key) { tmux({"send-keys", key}); }
void TmuxSession::erase(int count) { tmux({"send-keys", "-N", std::to_string(count), "BSpace"}); }
std::string TmuxSession::screen() { return tmux({"capture-pane", "-p", "-J"}).out; }

bool TmuxSession::wait_screen(const std::string& text, std::chrono::milliseconds timeout) {
  return testing::wait_until([&] { return screen().find(text) != std::string::npos; }, timeout,
                             std::chrono::milliseconds(100));
}

bool TmuxSession::say(const std::string& text, const std::function<bool()>& done, const std::string& ready) {
  type(text);
  if (!wait_screen(text, std::chrono::seconds(10))) return false;
  press("Enter");
  if (!testing::wait_until(done, std::chrono::seconds(60), std::chrono::milliseconds(100))) return false;
  return wait_screen(ready, std::chrono::seconds(60));
}

bool TmuxSession::running() {
  return tmux({"display-message", "-p", "#{pane_dead}"}).out.find('0') != std::string::npos;
}

}  // namespace agentworks::e2e
