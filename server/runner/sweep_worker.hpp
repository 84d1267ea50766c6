// The thread that sweeps call folders off the event loop (crews/output_sweeper.hpp, R-F6). The loop submits a
// planned sweep; the thread runs it; the loop collects the calls whose folders left, woken through an eventfd,
// and records them. One job per Crew waits at a time: a newer plan for a Crew whose job has not started replaces
// it. Jobs not started when the server stops are dropped (the next start sweeps again).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crews/output_sweeper.hpp"

struct event;
struct event_base;

namespace agentworks::server::functions {

class SweepWorker {
 public:
  // `swept` runs on the loop with the calls whose folders left (never empty).
  SweepWorker(event_base* base, std::function<void(std::vector<functions::SweptCall> swept)> swept);
  ~SweepWorker();  // waits for the job that is running, drops the rest
  SweepWorker(const SweepWorker&) = delete;
  SweepWorker& operator=(const SweepWorker&) = delete;

  void submit(SweepJob job);

 private:
  void run();
  static void on_wake(int fd, short what, void* arg);

  std::function<void(std::vector<functions::SweptCall>)> swept_;
  int wake_fd_ = -1;
  event* wake_ev_ = nullptr;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<SweepJob> jobs_;
  std::vector<functions::SweptCall> done_;  // swept, not yet collected by the loop
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentworks::server::functions
