// agentworks ui [--port N] [--no-open]: the local status page. Serves 127.0.0.1 only and prints a link holding a
// one-time token (opened with xdg-open when there is a display); stops on Ctrl-C or SIGTERM. With --json it
// prints one line when it listens ({"listening":true,"url","port","pid"}) and one when it stops.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "command.hpp"
#include "agentworks/error.hpp"
#include "ui/page_actions.hpp"
#include "ui/page_routes.hpp"
#include "ui/page_server.hpp"
#include "ui/state_watcher.hpp"

extern char** environ;

namespace agentworks::cli {
using nlohmann::json;
namespace {

int g_stop_write_fd = -1;

void on_stop_signal(int) {
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(g_stop_write_fd, &byte, 1);
}

// SIGINT and SIGTERM become a byte on a pipe the accept loop polls.
UniqueFd stop_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw Error(ErrorCode::internal, "cannot create a pipe");
  g_stop_write_fd = fds[1];
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  return UniqueFd(fds[0]);
}

// xdg-open in the background when there is a display; a failure to open leaves the printed link.
void open_in_browser(const std::string& url) {
  if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  char* argv[] = {const_cast<char*>("xdg-open"), const_cast<char*>(url.c_str()), nullptr};
  const int rc = ::posix_spawnp(&pid, "xdg-open", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
}

class Ui final : public Command {
 public:
  void define(Options& options) override {
    options.option("--port", port_, "Port on 127.0.0.1 (default 0: a free one)");
    options.flag("--no-open", no_open_, "Only print the link; do not open a browser");
  }

  json run(const Context& ctx) override {
    check_range("--port", port_, 0, 65535);
    ui::PageServer server(static_cast<std::uint16_t>(port_));
    ui::PageActions actions(ctx.config_path);
    ui::StateWatcher watcher([&actions] { return actions.state(); }, std::chrono::milliseconds(400));
    ui::PageAccess access(server.port());
    ui::PageRoutes routes(server.port(), access, watcher, actions);
    const auto stop = stop_pipe();
    watcher.start();

    const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/?token=" + access.token();
    if (ctx.json) {
      std::cout << json{{"listening", true}, {"url", url}, {"port", server.port()}, {"pid", ::getpid()}}.dump()
                << std::endl;
    } else {
      std::cout << "agentworks ui: open " << url << "\n  (the link works once, in one browser; Ctrl-C stops the page)"
                << std::endl;
    }
    if (!no_open_) open_in_browser(url);
    server.serve(routes, watcher, stop.get());
    return {{"stopped", true}, {"port", server.port()}, {"link_used", access.token_spent()}};
  }

  void print(const json&) const override { std::cout << "agentworks ui: stopped" << std::endl; }

 private:
  int port_ = 0;
  bool no_open_ = false;
};

}  // namespace

std::unique_ptr<Command> make_ui() { return std::make_unique<Ui>(); }

}  // namespace agentworks::cli
