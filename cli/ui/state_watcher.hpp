// The page's live state: a thread asks the bridge for its status and activity a few times a second and keeps the
// latest answer as one JSON text with a version that grows when the text changes. Event streams wait for a newer
// version; an action (detach, cleanup) kicks a fetch at once so its effect shows without waiting for the period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace agentworks::cli::ui {

struct Snapshot {
  std::uint64_t version = 0;
  std::string json;  // the state object as compact JSON text
};

class StateWatcher {
 public:
  // `fetch` builds the state text; it is called on the watcher's thread only, and must not throw.
  StateWatcher(std::function<std::string()> fetch, std::chrono::milliseconds period);
  StateWatcher(const StateWatcher&) = delete;
  StateWatcher& operator=(const StateWatcher&) = delete;
  ~StateWatcher();

  void start();
  void stop();
  void kick();
  Snapshot current();
  // Blocks until a version newer than `seen` exists, the deadline passes or stop(); returns the current snapshot.
  Snapshot wait_newer(std::uint64_t seen, std::chrono::steady_clock::time_point deadline);
  bool stopping();

 private:
  void loop();

  std::function<std::string()> fetch_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable changed_;  // a new version, or stop
  std::condition_variable wake_;     // kick or stop
  Snapshot snapshot_;
  bool kicked_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentworks::cli::ui
