#include "runner/sweep_worker.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "agentworks/error.hpp"

namespace agentworks::server::functions {

SweepWorker::SweepWorker(event_base* base, std::function<void(std::vector<SweptCall>)> swept)
    : swept_(std::move(swept)) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw Error(ErrorCode::internal, std::string("eventfd: ") + std::strerror(errno));
  wake_ev_ = event_new(base, wake_fd_, EV_READ | EV_PERSIST, &SweepWorker::on_wake, this);
  if (wake_ev_ == nullptr || event_add(wake_ev_, nullptr) != 0) {
    if (wake_ev_ != nullptr) event_free(wake_ev_);
    ::close(wake_fd_);
    throw Error(ErrorCode::internal, "cannot watch the sweep worker's eventfd");
  }
  thread_ = std::thread([this] { run(); });
}

SweepWorker::~SweepWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  thread_.join();
  event_free(wake_ev_);
  ::close(wake_fd_);
}

void SweepWorker::submit(SweepJob job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bool replaced = false;
    for (auto& waiting : jobs_) {
      if (waiting.crew_id == job.crew_id) {
        waiting = std::move(job);
        replaced = true;
        break;
      }
    }
    if (!replaced) jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void SweepWorker::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    SweepJob job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    std::vector<SweptCall> swept;
    try {
      swept = run_sweep(job);
    } catch (const std::exception& e) {
      spdlog::warn("sweeping the call folders of {}: {}", job.crew_dir, e.what());
    }
    lock.lock();
    if (swept.empty()) continue;
    done_.insert(done_.end(), swept.begin(), swept.end());
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
}

void SweepWorker::on_wake(int fd, short, void* arg) {
  auto* self = static_cast<SweepWorker*>(arg);
  std::uint64_t count = 0;
  (void)!::read(fd, &count, sizeof count);  // EAGAIN when nothing is waiting: fine
  std::vector<SweptCall> swept;
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    swept.swap(self->done_);
  }
  if (!swept.empty()) self->swept_(std::move(swept));
}

}  // namespace agentworks::server::functions
