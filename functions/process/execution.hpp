// One running process of a call, watched from its host's event loop without blocking it: the keeper
// (keeper/keeper.hpp) started with pipes for stdout, stderr and its status line, and a pidfd for its exit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct event;
struct event_base;

namespace agentworks::functions {

inline constexpr std::size_t kMaxAnswerBytes = 256 * 1024;

struct ExecutionSpec {
  std::string keeper;                 // agentworks-keeper, beside the host's executable
  std::vector<std::string> command;   // run.command
  std::vector<std::string> env;       // NAME=VALUE, the whole environment
  std::string cwd;
  std::string stdin_bytes;
};

struct ExecutionEnd {
  enum class Kind { exited, signaled, spawn_failed };
  Kind kind = Kind::signaled;
  int code = 0;        // exit status or signal number
  std::string detail;  // spawn_failed: why
};

class Execution {
 public:
  using LineHandler = std::function<void(const std::string& line)>;
  using EndHandler = std::function<void(const ExecutionEnd& end)>;

  // Starts the keeper; throws Error(internal) when it cannot. The handlers run on the loop; the end handler
  // runs once, after every output line was delivered. With `on_stdout_line` (an agent's event stream) stdout is
  // delivered line by line instead of kept as the answer.
  Execution(event_base* base, const ExecutionSpec& spec, LineHandler on_stderr_line, EndHandler on_end,
            LineHandler on_stdout_line = {});
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  // Asks the keeper to kill the process tree (the end handler follows once it is gone); a keeper still there
  // after a grace period is killed with SIGKILL, and the tree with it.
  void terminate();
  const std::string& stdout_text() const { return stdout_; }
  bool stdout_truncated() const { return stdout_truncated_; }
  int pid() const { return pid_; }

 private:
  static void on_stdout(int fd, short what, void* arg);
  static void on_stderr(int fd, short what, void* arg);
  static void on_exit(int fd, short what, void* arg);
  static void on_escalate(int fd, short what, void* arg);
  // Reads the keeper's status lines that arrived (never blocks) and learns the program's group from them.
  void read_status();
  // What a drain left: the pipe closed, nothing more for now, or more than its budget.
  enum class Drained { closed, empty, more };
  Drained drain_stdout(std::size_t budget = SIZE_MAX);
  Drained drain_stderr(std::size_t budget = SIZE_MAX);
  // After the tree exited: what it wrote is read a budget per loop turn, then the execution finishes.
  void drain_after_exit();
  void finish();

  // Splits `partial` into whole lines for `handler`; `flush` (or a rest over `limit`) delivers the unterminated rest.
  static void deliver_lines(std::string& partial, const LineHandler& handler, bool flush, std::size_t limit);

  LineHandler on_line_;
  EndHandler on_end_;
  LineHandler on_stdout_line_;
  std::string stdout_partial_;
  int pid_ = -1;
  int pidfd_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  int status_fd_ = -1;
  event* out_ev_ = nullptr;
  event* err_ev_ = nullptr;
  event* exit_ev_ = nullptr;
  event* after_exit_ev_ = nullptr;
  event* escalate_ev_ = nullptr;
  std::string status_text_;  // the keeper's output not yet read as whole lines
  std::string end_line_;     // "exit N", "signal N" or "spawn_failed REASON"
  int group_ = -1;           // the program's process group when the keeper runs it without a PID namespace
  std::string stdout_;
  bool stdout_truncated_ = false;
  std::string stderr_partial_;
  bool ended_ = false;
};

}  // namespace agentworks::functions
