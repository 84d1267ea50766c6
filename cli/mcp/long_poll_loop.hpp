// The background thread of a long poll parked in the bridge (the Claude channel's `channel_take`, Pi's
// `steer_wait`): it runs one poll after another until stopped. A poll may park in the bridge for its whole wait;
// stopping cancels it through a descriptor the poll hands to bridge_client::call_cancellable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "agentworks/unique_fd.hpp"

namespace agentworks::cli::mcp {

class LongPollLoop {
 public:
  // Ask again at once / when nothing could park (an empty answer well before the wait: a bridge without the
  // long poll, or the chat is offline) / when the bridge could not be asked (not attached yet, no bridge).
  static constexpr std::chrono::milliseconds kAtOnce{0};
  static constexpr std::chrono::milliseconds kNoPark{200};
  static constexpr std::chrono::milliseconds kIdle{2000};
  static constexpr std::chrono::milliseconds kEnd{-1};  // the poll is over for good: the thread ends

  // One poll, given the cancel descriptor; returns how long to wait before the next (or kEnd). An Error it throws
  // waits kIdle; anything else is logged as `what` and waits kIdle too.
  using Poll = std::function<std::chrono::milliseconds(int cancel_fd)>;

  LongPollLoop(std::string what, Poll poll);
  ~LongPollLoop();  // cancels a parked poll and joins
  LongPollLoop(const LongPollLoop&) = delete;
  LongPollLoop& operator=(const LongPollLoop&) = delete;

  void start();  // once; later calls do nothing

 private:
  void run();
  bool stopping();
  // poll(), or kIdle when the bridge could not be asked. Each outcome returns its own wait: a default assigned
  // from the poll inside a try block read 0 after a throw in the release build, and the loop spun on connect().
  std::chrono::milliseconds next_wait();

  std::string what_;
  Poll poll_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  UniqueFd stop_read_;  // readable once the loop stops: cancels the parked poll
  UniqueFd stop_write_;
};

}  // namespace agentworks::cli::mcp
