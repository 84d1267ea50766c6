#include "serving/runner_supervisor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "agentworks/environment.hpp"
#include "platform/log.hpp"

namespace agentworks::bridge {

namespace {

constexpr std::uint64_t kScanMs = 3000;
constexpr std::uint64_t kMaxPauseMs = 60000;
constexpr int kServingEnded = 3;  // `crews serve`'s exit when the server ended the serving

}  // namespace

struct RunnerSupervisor::Runner {
  RunnerSupervisor* owner = nullptr;
  std::string name;
  uv_process_t* process = nullptr;  // while running
  uv_timer_t* pause = nullptr;      // before a start again
  int restarts = 0;
  int failures = 0;                 // in a row: the pause doubles with each
  int last_exit = -1;
  bool wanted = true;               // its record is there
};

RunnerSupervisor::RunnerSupervisor(uv_loop_t* loop, std::string cli, std::filesystem::path served_dir,
                                   std::filesystem::path log_dir)
    : loop_(loop), cli_(std::move(cli)), served_dir_(std::move(served_dir)), log_dir_(std::move(log_dir)) {}

RunnerSupervisor::~RunnerSupervisor() { stop(); }

void RunnerSupervisor::start() {
  if (cli_.empty()) {
    log::warn("no agentworks program beside the bridge: the Crews this computer serves are not served (set "
              "AGENTWORKS_CLI_BIN)");
    return;
  }
  scan_timer_ = new uv_timer_t{};
  uv_timer_init(loop_, scan_timer_);
  scan_timer_->data = this;
  uv_timer_start(scan_timer_, [](uv_timer_t* t) { static_cast<RunnerSupervisor*>(t->data)->scan(); }, 0, kScanMs);
}

void RunnerSupervisor::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (scan_timer_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(scan_timer_), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    scan_timer_ = nullptr;
  }
  for (auto& [name, r] : runners_) {
    r->wanted = false;
    if (r->pause != nullptr) {
      uv_close(reinterpret_cast<uv_handle_t*>(r->pause), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
      r->pause = nullptr;
    }
    if (r->process != nullptr) {
      uv_process_kill(r->process, SIGTERM);  // its executions end with it; the server interrupts their calls
      r->process->data = nullptr;            // its exit finds no runner
      uv_close(reinterpret_cast<uv_handle_t*>(r->process),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
      r->process = nullptr;
    }
  }
  runners_.clear();
}

std::vector<RunnerState> RunnerSupervisor::states() const {
  std::vector<RunnerState> out;
  for (const auto& [name, r] : runners_)
    out.push_back(RunnerState{name, r->process != nullptr ? r->process->pid : 0, r->restarts, r->last_exit});
  return out;
}

// The folder is listed off the loop (uv_fs_scandir); its records are named NAME.json.
void RunnerSupervisor::scan() {
  if (scanning_ || stopped_) return;
  scanning_ = true;
  auto* req = new uv_fs_t{};
  req->data = this;
  const int rc = uv_fs_scandir(loop_, req, served_dir_.c_str(), 0, [](uv_fs_t* r) {
    auto* self = static_cast<RunnerSupervisor*>(r->data);
    std::vector<std::string> names;
    if (r->result >= 0) {
      uv_dirent_t entry;
      while (uv_fs_scandir_next(r, &entry) != UV_EOF) {
        const std::string file = entry.name;
        if (file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0) names.push_back(file.substr(0, file.size() - 5));
      }
    }
    uv_fs_req_cleanup(r);
    delete r;
    self->scanning_ = false;
    self->scanned(std::move(names));
  });
  if (rc != 0) {
    uv_fs_req_cleanup(req);
    delete req;
    scanning_ = false;
  }
}

void RunnerSupervisor::scanned(std::vector<std::string> names) {
  if (stopped_) return;
  for (auto& [name, r] : runners_) r->wanted = std::find(names.begin(), names.end(), name) != names.end();
  for (const auto& name : names) {
    auto& r = runners_[name];
    if (!r) {
      r = std::make_unique<Runner>();
      r->owner = this;
      r->name = name;
      spawn(*r);
    }
  }
  for (auto it = runners_.begin(); it != runners_.end();) {
    Runner& r = *it->second;
    if (!r.wanted && r.process != nullptr) uv_process_kill(r.process, SIGTERM);  // its exit removes it
    if (!r.wanted && r.process == nullptr) {
      if (r.pause != nullptr)
        uv_close(reinterpret_cast<uv_handle_t*>(r.pause), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
      it = runners_.erase(it);
      continue;
    }
    ++it;
  }
}

void RunnerSupervisor::spawn(Runner& r) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  const std::string log_path = (log_dir_ / ("runner-" + r.name + ".log")).string();
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;
  for (int i = 1; i < 3; ++i) {
    stdio[i].flags = log_fd >= 0 ? UV_INHERIT_FD : UV_IGNORE;
    stdio[i].data.fd = log_fd;
  }
  std::string crews = "crews", serve = "serve", name = r.name;
  std::vector<char*> argv{cli_.data(), crews.data(), serve.data(), name.data(), nullptr};
  uv_process_options_t options{};
  options.file = cli_.c_str();
  options.args = argv.data();
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = [](uv_process_t* p, int64_t status, int signal) {
    auto* runner = static_cast<Runner*>(p->data);
    uv_close(reinterpret_cast<uv_handle_t*>(p), [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
    if (runner != nullptr) {
      runner->process = nullptr;
      runner->owner->exited(*runner, status, signal);
    }
  };
  auto* process = new uv_process_t{};
  process->data = &r;
  const int rc = uv_spawn(loop_, process, &options);
  if (log_fd >= 0) ::close(log_fd);
  if (rc != 0) {
    log::warn("cannot start the runner of Crew " + r.name + ": " + uv_strerror(rc));
    uv_close(reinterpret_cast<uv_handle_t*>(process), [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
    exited(r, -1, 0);
    return;
  }
  r.process = process;
  log::info("serving Crew " + r.name + ": runner pid " + std::to_string(process->pid) + ", log " + log_path);
}

void RunnerSupervisor::exited(Runner& r, std::int64_t status, int signal) {
  r.last_exit = signal != 0 ? -1 : static_cast<int>(status);
  if (stopped_) return;
  if (!r.wanted) {
    const std::string name = r.name;
    if (r.pause != nullptr)
      uv_close(reinterpret_cast<uv_handle_t*>(r.pause), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    runners_.erase(name);
    return;
  }
  ++r.failures;
  // Ended by the server (serving stopped or moved): tried again only at the longest pause, for a record
  // registered anew under the same name.
  const bool ended_by_server = r.last_exit == kServingEnded;
  const std::uint64_t pause =
      ended_by_server ? kMaxPauseMs : std::min<std::uint64_t>(kMaxPauseMs, 1000ULL << std::min(r.failures - 1, 6));
  if (ended_by_server)
    log::info("Crew " + r.name + " is no longer served from this computer (the server ended it); asking again in " +
              std::to_string(pause / 1000) + " s");
  else
    log::warn("the runner of Crew " + r.name + " ended (" +
              (signal != 0 ? "signal " + std::to_string(signal) : "exit " + std::to_string(status)) +
              "); starting it again in " + std::to_string(pause / 1000) + " s");
  if (r.pause == nullptr) {
    r.pause = new uv_timer_t{};
    uv_timer_init(loop_, r.pause);
    r.pause->data = &r;
  }
  uv_timer_start(r.pause, [](uv_timer_t* t) {
    auto* runner = static_cast<Runner*>(t->data);
    if (runner->process != nullptr || !runner->wanted) return;
    ++runner->restarts;
    runner->owner->spawn(*runner);
  }, pause, 0);
}

std::string find_cli_beside(const std::string& self_dir) {
  if (const char* given = env::get(env::Var::cli_bin); given != nullptr && *given != '\0')
    return ::access(given, X_OK) == 0 ? std::string(given) : "";
  for (const std::string& candidate : {self_dir + "/agentworks", self_dir + "/../cli/agentworks"}) {
    if (::access(candidate.c_str(), X_OK) == 0) return std::filesystem::weakly_canonical(candidate).string();
  }
  return "";
}

}  // namespace agentworks::bridge
