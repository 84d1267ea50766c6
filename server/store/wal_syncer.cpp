#include "store/wal_syncer.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "agentworks/error.hpp"

namespace agentworks::server {

namespace {

// The WAL file, opened once (lazily: SQLite creates it with the first write). fdatasync reports a write-back
// error only to descriptors that were open when it happened, so the descriptor stays open. SQLite keeps the same
// file (it truncates, never replaces, while a connection is open); a replaced file is an error, not a silent
// sync of the wrong inode.
class WalFile {
 public:
  explicit WalFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~WalFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  WalFile(const WalFile&) = delete;
  WalFile& operator=(const WalFile&) = delete;

  int sync() {
    if (fd_ < 0) {
      fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) return errno;
      struct stat st {};
      if (::fstat(fd_, &st) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;  // opened again by the next flush
        return err;
      }
      inode_ = st.st_ino;
    }
    if (::fdatasync(fd_) != 0) return errno;
    struct stat now {};
    if (::stat(path_.c_str(), &now) != 0) return errno;
    return now.st_ino == inode_ ? 0 : ESTALE;
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  ino_t inode_ = 0;
};

}  // namespace

std::function<int()> file_flush(const std::filesystem::path& path) {
  return [file = std::make_shared<WalFile>(path)] { return file->sync(); };
}

WalSyncer::WalSyncer(SyncFn sync) : sync_(std::move(sync)) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw Error(ErrorCode::internal, std::string("eventfd: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
}

WalSyncer::~WalSyncer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  ::close(wake_fd_);
}

std::uint64_t WalSyncer::request() {
  std::uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ticket = ++requested_;
  }
  cv_.notify_all();
  return ticket;
}

std::vector<WalSyncer::Outcome> WalSyncer::collect() {
  std::uint64_t count = 0;
  (void)!::read(wake_fd_, &count, sizeof count);  // EAGAIN when nothing is waiting: fine
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Outcome> out = std::move(outcomes_);
  outcomes_.clear();
  return out;
}

void WalSyncer::wait_for(std::uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return finished_ >= ticket || stop_; });
}

void WalSyncer::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || requested_ > finished_; });
    if (requested_ == finished_) return;  // stopping with nothing left to sync
    // Every commit up to `through` has written its WAL frames already: one flush covers them all.
    const std::uint64_t through = requested_;
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    const int err = sync_();
    const auto took = std::chrono::steady_clock::now() - started;
    lock.lock();
    Outcome outcome{through, err == 0, err == 0 ? std::string() : std::string(std::strerror(err)),
                    std::chrono::duration_cast<std::chrono::nanoseconds>(took)};
    outcomes_.push_back(std::move(outcome));
    finished_ = through;
    cv_.notify_all();
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
}

}  // namespace agentworks::server
