#include "process/execution.hpp"

#include <event2/event.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <spdlog/spdlog.h>

#include "agentworks/error.hpp"
#include "process/keeper_launcher.hpp"

namespace agentworks::functions {
namespace {

constexpr std::size_t kMaxPartialLine = 64 * 1024;
// What one readable event takes from a pipe: an execution that floods its stderr has each line stored (a round
// trip per statement on PostgreSQL), and must not keep the loop from the requests waiting meanwhile.
constexpr std::size_t kReadBudget = 4096;
// An agent's event lines carry whole tool results: kept whole up to this size, so a JSON line is never split.
constexpr std::size_t kMaxEventLine = 16 * 1024 * 1024;
// After SIGTERM the keeper ends the tree at once; one that has not exited after this was stopped or is stuck, and
// is killed with SIGKILL (with the program's group, when it runs without a PID namespace).
constexpr timeval kTerminateGrace{3, 0};

// The keeper is the launcher's child, not this process's: it is signalled through its pidfd, never by a pid that
// the launcher may already have reaped and the system reused.
void signal_keeper(int pidfd, int sig) { ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0); }

[[noreturn]] void spawn_error(const std::string& what) {
  throw Error(ErrorCode::internal, "cannot start the execution: " + what + ": " + std::strerror(errno));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Execution::Execution(event_base* base, const ExecutionSpec& spec, LineHandler on_stderr_line, EndHandler on_end,
                     LineHandler on_stdout_line)
    : on_line_(std::move(on_stderr_line)), on_end_(std::move(on_end)), on_stdout_line_(std::move(on_stdout_line)) {
  const int in = memfd_holding("agentworks-call-stdin", spec.stdin_bytes);
  int out[2], err[2], status[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 || ::pipe2(status, O_CLOEXEC) != 0) {
    ::close(in);
    spawn_error("pipe2");
  }
  LaunchedKeeper launched;
  try {
    launched = launch_keeper(spec.keeper, in, out[1], err[1], status[1], spec.cwd, spec.command, spec.env);
  } catch (...) {
    for (const int fd : {in, out[0], out[1], err[0], err[1], status[0], status[1]}) ::close(fd);
    throw;
  }
  for (const int fd : {in, out[1], err[1], status[1]}) ::close(fd);
  pid_ = launched.pid;
  pidfd_ = launched.pidfd;
  out_fd_ = out[0];
  err_fd_ = err[0];
  status_fd_ = status[0];
  for (const int fd : {out_fd_, err_fd_, status_fd_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  out_ev_ = event_new(base, out_fd_, EV_READ | EV_PERSIST, &Execution::on_stdout, this);
  err_ev_ = event_new(base, err_fd_, EV_READ | EV_PERSIST, &Execution::on_stderr, this);
  exit_ev_ = event_new(base, pidfd_, EV_READ, &Execution::on_exit, this);
  after_exit_ev_ = event_new(base, -1, 0, &Execution::on_exit, this);
  escalate_ev_ = evtimer_new(base, &Execution::on_escalate, this);
  event_add(out_ev_, nullptr);
  event_add(err_ev_, nullptr);
  event_add(exit_ev_, nullptr);
}

Execution::~Execution() {
  if (!ended_ && pid_ > 0) {
    // The host is going away: the keeper must take the tree with it, and a keeper stopped from inside cannot.
    signal_keeper(pidfd_, SIGTERM);
    read_status();
    if (group_ > 0) ::kill(-group_, SIGKILL);
  }
  for (event* e : {out_ev_, err_ev_, exit_ev_, after_exit_ev_, escalate_ev_})
    if (e != nullptr) event_free(e);
  close_fd(out_fd_);
  close_fd(err_fd_);
  close_fd(status_fd_);
  close_fd(pidfd_);
}

void Execution::terminate() {
  if (ended_ || pid_ <= 0) return;
  signal_keeper(pidfd_, SIGTERM);
  evtimer_add(escalate_ev_, &kTerminateGrace);  // a timeout always ends in SIGKILL
}

void Execution::on_escalate(int, short, void* arg) {
  auto* self = static_cast<Execution*>(arg);
  if (self->ended_) return;
  self->read_status();
  signal_keeper(self->pidfd_, SIGKILL);  // the keeper's PID namespace dies with it
  if (self->group_ > 0) ::kill(-self->group_, SIGKILL);
}

void Execution::read_status() {
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(status_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (status_text_.size() < 4096) status_text_.append(buf, static_cast<std::size_t>(n));
  }
  // Whole lines: "group N" (the keeper runs the program without a PID namespace, in that process group) and
  // "warning TEXT" come before the end line.
  std::size_t nl = 0;
  while (end_line_.empty() && (nl = status_text_.find('\n')) != std::string::npos) {
    const std::string line = status_text_.substr(0, nl);
    status_text_.erase(0, nl + 1);
    if (line.rfind("group ", 0) == 0) {
      group_ = std::atoi(line.c_str() + 6);
    } else if (line.rfind("warning ", 0) == 0) {
      spdlog::warn("function call execution (keeper pid {}): {}", pid_, line.substr(8));
    } else {
      end_line_ = line;
    }
  }
}

void Execution::on_stdout(int, short, void* arg) {
  auto* self = static_cast<Execution*>(arg);
  if (self->drain_stdout(kReadBudget) == Drained::closed) {
    event_del(self->out_ev_);
  }
}

void Execution::on_stderr(int, short, void* arg) {
  auto* self = static_cast<Execution*>(arg);
  if (self->drain_stderr(kReadBudget) == Drained::closed) {
    event_del(self->err_ev_);
  }
}

// Reads what is there, up to `budget` bytes; false at end of file or error (the pipe is done).
Execution::Drained Execution::drain_stdout(std::size_t budget) {
  char buf[16384];
  for (std::size_t taken = 0; taken < budget;) {
    const ssize_t n = ::read(out_fd_, buf, std::min(sizeof buf, budget - taken));
    if (n > 0) taken += static_cast<std::size_t>(n);
    if (n > 0) {
      if (on_stdout_line_) {
        stdout_partial_.append(buf, static_cast<std::size_t>(n));
        deliver_lines(stdout_partial_, on_stdout_line_, false, kMaxEventLine);
        continue;
      }
      const std::size_t room = kMaxAnswerBytes - std::min(kMaxAnswerBytes, stdout_.size());
      stdout_.append(buf, std::min(room, static_cast<std::size_t>(n)));
      if (static_cast<std::size_t>(n) > room) stdout_truncated_ = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const bool open = n < 0 && errno == EAGAIN;
    if (!open && on_stdout_line_) deliver_lines(stdout_partial_, on_stdout_line_, true, kMaxEventLine);
    return open ? Drained::empty : Drained::closed;
  }
  return Drained::more;  // the next loop turn reads on, after the requests waiting meanwhile
}

void Execution::deliver_lines(std::string& partial, const LineHandler& handler, bool flush, std::size_t limit) {
  std::size_t start = 0;
  for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1)
    handler(partial.substr(start, nl - start));
  partial.erase(0, start);
  if (!partial.empty() && (flush || partial.size() > limit)) {
    handler(partial);
    partial.clear();
  }
}

Execution::Drained Execution::drain_stderr(std::size_t budget) {
  char buf[16384];
  for (std::size_t taken = 0; taken < budget;) {
    const ssize_t n = ::read(err_fd_, buf, std::min(sizeof buf, budget - taken));
    if (n > 0) taken += static_cast<std::size_t>(n);
    if (n > 0) {
      stderr_partial_.append(buf, static_cast<std::size_t>(n));
      deliver_lines(stderr_partial_, on_line_, false, kMaxPartialLine);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const bool open = n < 0 && errno == EAGAIN;
    if (!open) deliver_lines(stderr_partial_, on_line_, true, kMaxPartialLine);
    return open ? Drained::empty : Drained::closed;
  }
  return Drained::more;
}

void Execution::on_exit(int, short, void* arg) { static_cast<Execution*>(arg)->drain_after_exit(); }

void Execution::drain_after_exit() {
  if (ended_) return;
  const bool more_out = drain_stdout(kReadBudget) == Drained::more;
  const bool more_err = drain_stderr(kReadBudget) == Drained::more;
  if (more_out || more_err) {
    event_active(after_exit_ev_, EV_TIMEOUT, 0);
    return;
  }
  finish();
}

void Execution::finish() {
  if (ended_) return;
  ended_ = true;
  // Whatever the tree wrote before it died is in the pipes now; a process that escaped the tree cannot hold
  // the call open, so read what is there and stop.
  drain_stdout();
  drain_stderr();
  deliver_lines(stderr_partial_, on_line_, true, kMaxPartialLine);
  if (on_stdout_line_) deliver_lines(stdout_partial_, on_stdout_line_, true, kMaxEventLine);
  read_status();
  const std::string line = end_line_;
  ExecutionEnd end;
  if (line.rfind("exit ", 0) == 0) {
    end.kind = ExecutionEnd::Kind::exited;
    end.code = std::atoi(line.c_str() + 5);
  } else if (line.rfind("signal ", 0) == 0) {
    end.kind = ExecutionEnd::Kind::signaled;
    end.code = std::atoi(line.c_str() + 7);
  } else if (line.rfind("spawn_failed ", 0) == 0) {
    end.kind = ExecutionEnd::Kind::spawn_failed;
    end.detail = line.substr(13);
  } else {
    // The keeper itself died without a word (killed from outside, or from inside without a PID namespace): in a
    // namespace the tree died with it; else its group is killed here. How it died is its launcher's to know.
    if (group_ > 0) ::kill(-group_, SIGKILL);
    end.kind = ExecutionEnd::Kind::signaled;
    end.code = SIGKILL;
  }
  for (event* e : {out_ev_, err_ev_, exit_ev_, after_exit_ev_, escalate_ev_}) event_del(e);
  on_end_(end);  // may destroy this object: nothing after this line
}

}  // namespace agentworks::functions
