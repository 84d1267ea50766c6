#include "channel_mcp_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

namespace agentworks::bench {

using Clock = std::chrono::steady_clock;

ChannelMcpChild::~ChannelMcpChild() { stop(); }

bool ChannelMcpChild::start(const std::string& cli, const std::vector<std::string>& env, std::string* error) {
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<std::string> args = {cli, "mcp", "serve", "--provider", "claude", "--claude-channel"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy = env;
  std::vector<char*> envp;
  for (auto& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  in_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
  return true;
}

bool ChannelMcpChild::write_line(const std::string& line) {
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool ChannelMcpChild::initialize(std::chrono::milliseconds timeout, std::string* error) {
  const nlohmann::json init = {
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "initialize"},
      {"params",
       {{"protocolVersion", "2025-06-18"},
        {"capabilities", nlohmann::json::object()},
        {"clientInfo", {{"name", "agentworks-bench-channel"}, {"version", "1"}}}}}};
  if (!write_line(init.dump())) {
    *error = "cannot write initialize to the MCP child";
    return false;
  }
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto line = read_line(deadline);
    if (!line) {
      *error = "no initialize answer from the MCP child";
      return false;
    }
    const auto answer = nlohmann::json::parse(*line, nullptr, false);
    if (answer.is_object() && answer.value("id", 0) == 1) {
      if (!answer.contains("result") || !answer["result"].contains("capabilities") ||
          !answer["result"]["capabilities"].contains("experimental")) {
        *error = "the MCP child does not declare the claude/channel capability: " + *line;
        return false;
      }
      break;
    }
  }
  return write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

std::optional<std::string> ChannelMcpChild::read_line(Clock::time_point deadline) {
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || out_fd_ < 0) return std::nullopt;
    pollfd p{out_fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char chunk[8192];
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void ChannelMcpChild::stop() {
  if (in_fd_ >= 0) ::close(in_fd_);
  in_fd_ = -1;
  if (pid_ > 0) {
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
}

}  // namespace agentworks::bench
