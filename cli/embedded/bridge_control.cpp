#include "embedded/bridge_control.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>
#include <vector>

#include "agentworks/bridge_client.hpp"
#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/paths.hpp"
#include "embedded/binary_lookup.hpp"
#include "embedded/process.hpp"

namespace agentworks::cli {
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr const char* kBinary = "agentworks-bridge";

std::string read_all(int fd) {
  std::string out;
  ::lseek(fd, 0, SEEK_SET);
  char buf[4096];
  for (ssize_t n = ::read(fd, buf, sizeof buf); n > 0; n = ::read(fd, buf, sizeof buf)) {
    out.append(buf, static_cast<std::size_t>(n));
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

fs::path find_bridge_binary() { return find_program(kBinary, "daemon", env::Var::bridge_bin, "AGENTWORKS_BRIDGE_BIN"); }

fs::path bridge_log_path() { return paths::state_dir() / "bridge.log"; }

BridgeStart start_bridge(std::chrono::milliseconds timeout) {
  const std::string bin = find_bridge_binary().string();
  std::vector<const char*> argv = {bin.c_str(), nullptr};
  // The bridge's report goes to an unlinked temp file: the daemon it forks may keep stdout a moment longer than
  // the starter, so a pipe could keep us waiting; we only need the starter's exit and its words.
  char tmpl[] = "/tmp/agentworks-bridge-start-XXXXXX";
  const int out_fd = ::mkostemp(tmpl, O_CLOEXEC);
  if (out_fd < 0) throw Error(ErrorCode::internal, std::string("cannot create a temp file: ") + std::strerror(errno));
  ::unlink(tmpl);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(out_fd);
    if (null_fd >= 0) ::close(null_fd);
    throw Error(ErrorCode::internal, std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(out_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);  // no inherited descriptors (e.g. a test harness's pipes) stay open in the daemon
    ::execv(argv[0], const_cast<char* const*>(argv.data()));
    const char msg[] = "cannot execute agentworks-bridge\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  if (null_fd >= 0) ::close(null_fd);

  int status = 0;
  const auto deadline = clock_type::now() + timeout;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && clock_type::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string output = read_all(out_fd);
  ::close(out_fd);
  if (done != pid) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    throw Error(ErrorCode::internal, "agentworks-bridge did not report whether it started within " +
                                         std::to_string(timeout.count() / 1000) + " s; see " +
                                         bridge_log_path().string());
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = output;
    const std::string prefix = "agentworks-bridge: ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    throw Error(ErrorCode::internal, "the agentworks bridge could not start: " +
                                         (why.empty() ? std::string("no reason given") : why) + " (see " +
                                         bridge_log_path().string() + ")");
  }
  BridgeStart result;
  result.output = output;
  result.already_running = output.find("already running") != std::string::npos;
  if (const auto ping = bridge_client::ping(std::chrono::seconds(5))) {
    result.pid = ping->value("pid", 0);
  } else {
    throw Error(ErrorCode::internal, "agentworks-bridge reported \"" + output +
                                         "\" but its socket does not answer; see " + bridge_log_path().string());
  }
  return result;
}

BridgeStop stop_bridge(std::chrono::milliseconds timeout) {
  BridgeStop result;
  const auto ping = bridge_client::ping(std::chrono::seconds(5));
  if (!ping) return result;
  result.pid = ping->value("pid", 0);
  try {
    bridge_client::call(nlohmann::json{{"op", local_protocol::op::shutdown}}, std::chrono::seconds(5));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::unreachable) throw;  // it may close the connection as it stops
  }
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    const bool answers = bridge_client::ping(std::chrono::seconds(1)).has_value();
    const bool alive = result.pid > 0 && process_alive(result.pid);
    if (!answers && !alive) {
      result.stopped = true;
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw Error(ErrorCode::busy, "the agentworks bridge (pid " + std::to_string(result.pid) +
                                   ") is still running after the shutdown request; see `agentworks daemon logs`");
}

}  // namespace agentworks::cli
