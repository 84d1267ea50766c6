#include "embedded/user_units.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"

namespace agentworks::cli {
namespace {

struct SystemctlRun {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

std::string read_from_start(int fd) {
  std::string out;
  ::lseek(fd, 0, SEEK_SET);
  char buf[4096];
  for (ssize_t n = ::read(fd, buf, sizeof buf); n > 0; n = ::read(fd, buf, sizeof buf))
    out.append(buf, static_cast<std::size_t>(n));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// `systemctl --user ARGS...` from PATH, its output in an unlinked temp file (a child it leaves behind cannot
// hold a pipe open), killed after `timeout`.
SystemctlRun systemctl(const std::vector<std::string>& args, std::chrono::seconds timeout) {
  std::vector<std::string> words = {"systemctl", "--user"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  char tmpl[] = "/tmp/agentworks-systemctl-XXXXXX";
  const int out_fd = ::mkostemp(tmpl, O_CLOEXEC);
  if (out_fd < 0) throw Error(ErrorCode::internal, std::string("cannot create a temp file: ") + std::strerror(errno));
  ::unlink(tmpl);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  SystemctlRun run;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out_fd);
    if (null_fd >= 0) ::close(null_fd);
    return run;
  }
  if (pid == 0) {
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(out_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  if (null_fd >= 0) ::close(null_fd);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (done != pid) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    run.timed_out = true;
  }
  run.output = read_from_start(out_fd);
  ::close(out_fd);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  run.started = run.exit_code != 127;
  return run;
}

}  // namespace

namespace {
void run_unit(const char* verb, const std::string& unit) {
  const SystemctlRun r = systemctl({verb, unit}, std::chrono::seconds(30));
  if (r.exit_code != 0 || r.timed_out) {
    throw Error(ErrorCode::internal, std::string("systemctl --user ") + verb + " " + unit + " failed" +
                                         (r.timed_out ? std::string(" (no answer in 30 s)") : ": " + r.output) +
                                         "; see `journalctl --user -u " + unit + "`");
  }
}

pid_t pid_value(const std::string& text) {
  try {
    return static_cast<pid_t>(std::stol(text));
  } catch (const std::exception&) {
    return 0;
  }
}

// "AGENTWORKS_PORT=N" -> N; 0 when the text is anything else or N is no port.
int port_assignment(const std::string& text) {
  const std::string prefix = "AGENTWORKS_PORT=";
  if (text.rfind(prefix, 0) != 0) return 0;
  const std::string value = text.substr(prefix.size());
  if (value.empty() || value.size() > 5 || value.find_first_not_of("0123456789") != std::string::npos) return 0;
  const int port = std::stoi(value);
  return port > 0 && port <= 65535 ? port : 0;
}
}  // namespace

void start_user_unit(const std::string& unit) { run_unit("start", unit); }
void restart_user_unit(const std::string& unit) { run_unit("restart", unit); }

std::optional<int> server_unit_port_setting() {
  const auto text = read_file_if_exists(paths::server_unit_env_file());
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  std::string line;
  int port = 0;
  while (std::getline(lines, line))
    if (const int p = port_assignment(line); p > 0) port = p;  // the last one wins, as for systemd
  if (port == 0) return std::nullopt;
  return port;
}

void write_server_unit_port(int port) {
  write_private_file(paths::server_unit_env_file(),
                     "# Written by `agentworks up`: the port of this user's agentworks-server.service.\n"
                     "AGENTWORKS_PORT=" + std::to_string(port) + "\n");
}

pid_t user_unit_main_pid(const std::string& unit) {
  const SystemctlRun r = systemctl({"show", "--property=MainPID", "--value", unit}, std::chrono::seconds(5));
  return r.exit_code == 0 ? pid_value(r.output) : 0;
}

namespace {

// "{ path=/usr/bin/agentworks-server ; argv[]=/usr/bin/agentworks-server --listen ... ; ignore_errors=no ; ... }"
// -> its argv, specifier %h expanded with $HOME.
std::vector<std::string> exec_start_argv(const std::string& text) {
  std::vector<std::string> argv;
  const auto start = text.find("argv[]=");
  if (start == std::string::npos) return argv;
  const auto end = text.find(" ;", start);
  const std::string line = text.substr(start + 7, end == std::string::npos ? std::string::npos : end - start - 7);
  const char* home = std::getenv("HOME");
  std::string word;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ' ') {
      if (!word.empty()) argv.push_back(std::move(word));
      word.clear();
    } else if (line.compare(i, 2, "%h") == 0 && home != nullptr) {
      word += home;
      ++i;
    } else {
      word += line[i];
    }
  }
  return argv;
}

}  // namespace

UnitFacts user_unit_facts(const std::string& unit) {
  UnitFacts facts;
  // One `show` for every property: each systemctl costs a bus round trip and a process.
  const SystemctlRun r =
      systemctl({"show", "--property=LoadState,MainPID,ExecStart,Environment", unit}, std::chrono::seconds(5));
  if (!r.started) {
    facts.state = {false, "systemctl is not on PATH"};
    return facts;
  }
  if (r.timed_out) {
    facts.state = {false, "systemctl --user did not answer within 5 s"};
    return facts;
  }
  if (r.exit_code != 0) {
    facts.state = {false, "systemd --user does not run here (" + r.output + ")"};
    return facts;
  }
  std::istringstream lines(r.output);
  std::string line, load_state;
  while (std::getline(lines, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "LoadState") {
      load_state = value;
    } else if (key == "MainPID") {
      facts.main_pid = pid_value(value);
    } else if (key == "ExecStart") {
      facts.command = exec_start_argv(value);
    } else if (key == "Environment") {
      std::istringstream words(value);
      std::string word;
      while (words >> word)
        if (const int p = port_assignment(word); p > 0) facts.default_port = p;
    }
  }
  if (load_state != "loaded") {
    facts.state = {false, unit + " is not installed (LoadState " + load_state + ")"};
    return facts;
  }
  facts.state = {true, ""};
  return facts;
}

std::string option_value(const std::vector<std::string>& argv, const std::string& option) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == option) return argv[i + 1];
  }
  return "";
}

}  // namespace agentworks::cli
