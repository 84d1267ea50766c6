// Accepts connections on our listening socket. When accept fails for lack of descriptors or memory (EMFILE,
// ENFILE, ENOBUFS, ENOMEM) it stops accepting for a while (100 ms, doubling to 1 s) instead of retrying at once,
// and logs at most one line per 10 s with a count, so a full descriptor table cannot spin the loop or fill the disk.
#pragma once

#include <chrono>
#include <functional>

#include "http/log_throttle.hpp"

struct event;
struct event_base;

namespace agentworks::server {

class Listener {
 public:
  using AcceptFn = std::function<void(int fd)>;
  // Takes ownership of `fd` (a listening, non-blocking socket).
  Listener(event_base* base, int fd, AcceptFn on_accept);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Stops accepting and closes the socket (shutdown).
  void stop();

 private:
  static void on_readable(int fd, short what, void* arg);
  static void on_resume(int fd, short what, void* arg);
  void accept_some();
  void back_off(int err);

  int fd_;
  AcceptFn on_accept_;
  event* accept_ev_ = nullptr;
  event* resume_ev_ = nullptr;
  std::chrono::milliseconds backoff_{0};
  LogThrottle error_log_{std::chrono::seconds(10)};
};

}  // namespace agentworks::server
