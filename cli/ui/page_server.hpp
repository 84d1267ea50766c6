// The status page's listener: 127.0.0.1 only, one thread per connection (a person's browser opens a handful),
// at most kMaxConnections at once. A connection from a process of another uid is closed before a byte is read or
// written; a request must arrive whole within kRequestDeadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <thread>

#include "agentworks/unique_fd.hpp"
#include "ui/page_routes.hpp"

namespace agentworks::cli::ui {

class PageServer {
 public:
  static constexpr int kMaxConnections = 16;
  static constexpr std::chrono::seconds kRequestDeadline{10};
  static constexpr std::size_t kMaxHead = 16 * 1024;
  static constexpr std::size_t kMaxBody = 16 * 1024;

  // Binds 127.0.0.1:port (0: a free one). Throws Error(unavailable) when it cannot.
  explicit PageServer(std::uint16_t port);
  PageServer(const PageServer&) = delete;
  PageServer& operator=(const PageServer&) = delete;
  ~PageServer();

  std::uint16_t port() const { return port_; }
  // Serves until `stop_fd` becomes readable; then waits for the connections to end.
  void serve(PageRoutes& routes, StateWatcher& watcher, int stop_fd);

 private:
  void connection(PageRoutes& routes, StateWatcher& watcher, UniqueFd fd);
  void reap(bool all);

  UniqueFd listen_fd_;
  std::uint16_t port_ = 0;
  std::atomic<int> active_{0};
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::mutex workers_mutex_;
  std::list<Worker> workers_;
};

}  // namespace agentworks::cli::ui
