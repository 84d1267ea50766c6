#include "delivery/notify.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "agentworks/environment.hpp"
#include "platform/log.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::chrono::milliseconds kDefaultAfter{120000};

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::optional<std::string> on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest = path;
  while (true) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

// The program to run: the override when set (absolute path only), else the platform's notifier on PATH.
std::optional<std::string> notifier_program() {
  if (const char* cmd = env::get(env::Var::notify_command); cmd != nullptr) {
    if (cmd[0] == '/' && executable(cmd)) return std::string(cmd);
    return std::nullopt;
  }
#ifdef __APPLE__
  return on_path("osascript");
#else
  return on_path("notify-send");
#endif
}

// AppleScript string literal: quotes and backslashes escaped (agent names are validated, but be safe).
std::string applescript_quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<std::string> WaitEpisodes::update(const std::vector<WaitSample>& samples,
                                              std::chrono::steady_clock::time_point now) {
  std::vector<std::string> due;
  std::map<std::string, Episode> next;
  for (const auto& s : samples) {
    if (!s.waiting) continue;  // not waiting: its episode (if any) ends
    auto it = episodes_.find(s.attachment_id);
    Episode e = it == episodes_.end() ? Episode{now, false} : it->second;
    if (!e.notified && now - e.since >= after_) {
      e.notified = true;
      due.push_back(s.agent_name);
    }
    next[s.attachment_id] = e;
  }
  episodes_ = std::move(next);
  return due;
}

std::string waiting_title() { return "agentworks"; }

std::string waiting_text(std::string_view agent_name) {
  return "Messages are waiting for agent " + std::string(agent_name) + ": the chat has not taken them yet";
}

std::string uncertain_text(std::string_view agent_name) {
  return "Messages for agent " + std::string(agent_name) +
         " may not have reached the chat: read them with `agentworks messages read`";
}

std::string name_moved_text(std::string_view agent_name) {
  return "Agent " + std::string(agent_name) +
         " moved to another chat; the chat that held it no longer receives its messages";
}

std::vector<std::string> notifier_argv(const std::string& program, std::string_view title, std::string_view text) {
  const std::string name = basename_of(program);
  if (name == "notify-send") return {program, "--app-name=agentworks", std::string(title), std::string(text)};
  if (name == "osascript") {
    return {program, "-e", "display notification " + applescript_quoted(text) + " with title " +
                               applescript_quoted(title)};
  }
  return {program, std::string(title), std::string(text)};
}

bool DesktopNotifier::notify(std::string_view title, std::string_view text) {
  const auto program = notifier_program();
  if (!program) return false;
  std::vector<std::string> args = notifier_argv(*program, title, text);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  uv_stdio_container_t stdio[3];
  for (auto& s : stdio) s.flags = UV_IGNORE;  // /dev/null: the notifier never writes into the bridge's streams
  uv_process_options_t options{};
  options.file = argv[0];
  options.args = argv.data();
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = [](uv_process_t* p, int64_t, int) {
    uv_close(reinterpret_cast<uv_handle_t*>(p), [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
  };
  auto* process = new uv_process_t{};
  if (const int rc = uv_spawn(loop_, process, &options); rc != 0) {
    log::warn(std::string("desktop notification not shown: cannot run ") + *program + ": " + uv_strerror(rc));
    uv_close(reinterpret_cast<uv_handle_t*>(process),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
    return false;
  }
  return true;
}

std::chrono::milliseconds notify_after_from_env() {
  if (const char* v = env::get(env::Var::notify_after_ms); v != nullptr) {
    const long long ms = std::atoll(v);
    if (ms >= 1) return std::chrono::milliseconds(ms);
  }
  return kDefaultAfter;
}

WaitingWatch::WaitingWatch(uv_loop_t* loop, std::function<std::vector<WaitSample>()> sample)
    : sample_(std::move(sample)), episodes_(notify_after_from_env()), notifier_(loop), timer_(open_timer(loop, this)) {
  // Check a few times per threshold, at least every 50 ms and at most every 15 s.
  const auto after = static_cast<std::uint64_t>(notify_after_from_env().count());
  interval_ms_ = std::clamp<std::uint64_t>(after / 4, 50, 15000);
}

WaitingWatch::~WaitingWatch() { stop(); }

void WaitingWatch::start() {
  if (timer_ == nullptr) return;
  uv_timer_start(timer_, [](uv_timer_t* t) { static_cast<WaitingWatch*>(t->data)->tick(); }, interval_ms_,
                 interval_ms_);
}

void WaitingWatch::stop() {
  close_timer(timer_);
}

void WaitingWatch::tick() {
  std::vector<WaitSample> samples;
  try {
    samples = sample_();
  } catch (const std::exception& e) {
    log::warn(std::string("waiting-message check skipped: ") + e.what());
    return;
  }
  for (const auto& agent : episodes_.update(samples, std::chrono::steady_clock::now())) {
    // The log names the agent too; neither ever carries a message body (invariant 8).
    const bool shown = notifier_.notify(waiting_title(), waiting_text(agent));
    log::info("messages waiting for agent " + agent + (shown ? ": desktop notification sent" : ": no notifier"));
  }
}

}  // namespace agentworks::bridge
