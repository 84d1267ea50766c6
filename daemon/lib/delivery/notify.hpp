// Desktop notifications (R-B15): when messages wait for an attached chat that has not taken them for a while,
// tell the person once per waiting episode, naming the agent and NEVER a message body (invariant 8).
// notify-send on Linux, osascript on macOS, run with uv_spawn (no shell, never blocking the loop); skipped
// silently when the program is absent. Knobs: AGENTWORKS_NOTIFY_AFTER_MS (default 120000) and
// AGENTWORKS_NOTIFY_COMMAND (an absolute path, called as `COMMAND TITLE TEXT`; for tests).
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentworks::bridge {

struct WaitSample {
  std::string attachment_id;
  std::string agent_name;
  bool waiting = false;  // messages are cached for it and not taken yet
};

// Pure episode logic: an episode starts when an attachment is first seen waiting and ends when it is seen not
// waiting (or disappears). Each episode notifies at most once, `after` its start.
class WaitEpisodes {
 public:
  explicit WaitEpisodes(std::chrono::milliseconds after) : after_(after) {}
  // Returns the agent names to notify now.
  std::vector<std::string> update(const std::vector<WaitSample>& samples, std::chrono::steady_clock::time_point now);

 private:
  struct Episode {
    std::chrono::steady_clock::time_point since;
    bool notified = false;
  };
  std::chrono::milliseconds after_;
  std::map<std::string, Episode> episodes_;  // by attachment id
};

// The notification's words: the agent's name only.
std::string waiting_title();
std::string waiting_text(std::string_view agent_name);
// After a native push whose outcome is unknown (R-B14): the messages may not have reached the chat.
std::string uncertain_text(std::string_view agent_name);
// Another chat took the name (R-H7): the chat that held it no longer receives its messages.
std::string name_moved_text(std::string_view agent_name);

// argv for one notification with `program` (notify-send, osascript, or an override called as PROGRAM TITLE TEXT).
std::vector<std::string> notifier_argv(const std::string& program, std::string_view title, std::string_view text);

// Starts notifier processes on the loop; their exits are reaped by libuv.
class DesktopNotifier {
 public:
  explicit DesktopNotifier(uv_loop_t* loop) : loop_(loop) {}
  // False (silently) when no notifier program is available or it cannot be started.
  bool notify(std::string_view title, std::string_view text);

 private:
  uv_loop_t* loop_;
};

// Samples the journal on a timer and notifies. `sample` lists the attached attachments.
class WaitingWatch {
 public:
  WaitingWatch(uv_loop_t* loop, std::function<std::vector<WaitSample>()> sample);
  ~WaitingWatch();
  WaitingWatch(const WaitingWatch&) = delete;
  WaitingWatch& operator=(const WaitingWatch&) = delete;
  void start();
  void stop();

 private:
  void tick();
  std::function<std::vector<WaitSample>()> sample_;
  WaitEpisodes episodes_;
  DesktopNotifier notifier_;
  std::uint64_t interval_ms_;
  uv_timer_t* timer_;
};

// AGENTWORKS_NOTIFY_AFTER_MS, else 2 minutes.
std::chrono::milliseconds notify_after_from_env();

}  // namespace agentworks::bridge
