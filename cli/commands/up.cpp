// agentworks up [--port N]: the embedded default. Starts agentworks-server on loopback as a daemon
// (or finds it running), waits until it answers, and logs this CLI in with the owner token.
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"
#include "agentworks/server_client.hpp"
#include "command.hpp"
#include "embedded/bridge_control.hpp"
#include "embedded/process.hpp"
#include "embedded/server_record.hpp"
#include "embedded/server_spawn.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

constexpr int kDefaultPort = 7787;
constexpr std::chrono::seconds kStartTimeout{15};

std::string read_owner_token() {
  auto text = read_file_if_exists(owner_token_path());
  std::string token = text.value_or("");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) {
    throw Error(ErrorCode::internal, "the embedded server wrote no login token to " + owner_token_path().string());
  }
  return token;
}

class Up final : public Command {
 public:
  void define(Options& options) override {
    options.option("--port", port_, "Loopback port for the embedded server (default 7787; 0 picks a free one)");
  }

  json run(const Context& ctx) override {
    if (port_ < 0 || port_ > 65535) throw Error(ErrorCode::bad_request, "--port must be 0-65535");
    const auto data = paths::server_data_dir();
    make_private_dirs(data);
    FileLock lock(data / "up.lock");  // two concurrent `up`s start one server

    bool already_running = false;
    ServerRecord record;
    if (auto existing = read_server_record(); existing && process_alive(existing->pid) &&
                                              is_agentworks_server(existing->pid)) {
      if (!wait_healthy(existing->url, std::chrono::seconds(5))) {
        throw Error(ErrorCode::busy, "the embedded server (pid " + std::to_string(existing->pid) +
                                         ") is running but does not answer at " + existing->url + "; see " +
                                         server_log_path().string() + ", or run `agentworks down` and `agentworks up`");
      }
      record = *existing;
      already_running = true;
    } else {
      remove_server_record();  // stale: the process is gone
      if (!loopback_port_free(port_)) {
        throw Error(ErrorCode::conflict, "port " + std::to_string(port_) +
                                             " on 127.0.0.1 is already in use by another program; choose another "
                                             "with `agentworks up --port N` (0 picks a free port)");
      }
      SpawnedServer spawned = spawn_server(find_server_binary(), data, port_, server_log_path(), kStartTimeout);
      record = ServerRecord{spawned.pid, spawned.url, port_from(spawned.url), static_cast<std::int64_t>(std::time(nullptr))};
      write_server_record(record);
      if (!wait_healthy(record.url, kStartTimeout)) {
        throw Error(ErrorCode::internal, "the embedded server started at " + record.url +
                                             " but does not answer /v1/health; see " + server_log_path().string());
      }
    }

    // Log in with the owner token (idempotent: refreshes the saved login every time).
    Config config;
    config.server_url = record.url;
    config.native = previous_native_setting(ctx.config_path);  // the person's setting
    config.token = read_owner_token();
    config.embedded = true;
    ServerClient client(config.server_url, config.token);
    apply_whoami(config, client.get("/v1/whoami"));
    save_config(ctx.config_path, config);

    // The bridge reads this login when a chat attaches, so it starts after the login is saved (idempotent).
    const BridgeStart bridge = start_bridge();

    json result = public_login_json(config);
    result["pid"] = record.pid;
    result["already_running"] = already_running;
    result["log"] = server_log_path().string();
    result["bridge"] = {{"pid", bridge.pid}, {"already_running", bridge.already_running}};
    return result;
  }

  void print(const json& r) const override {
    std::cout << (r.value("already_running", false) ? "agentworks server already running at "
                                                     : "agentworks server started at ")
              << text_or(r, "server_url") << " (pid " << r.value("pid", 0) << ")\n"
              << "logged in as account " << text_or(r, "account_name") << " (connection "
              << text_or(r, "connection_id") << ")\n";
    const json& bridge = r["bridge"];
    std::cout << (bridge.value("already_running", false) ? "agentworks bridge already running (pid "
                                                          : "agentworks bridge started (pid ")
              << bridge.value("pid", 0) << ")\n";
  }

 private:
  static int port_from(const std::string& url) {
    auto colon = url.rfind(':');
    if (colon == std::string::npos) return 0;
    try {
      return std::stoi(url.substr(colon + 1));
    } catch (const std::exception&) {
      return 0;
    }
  }

  int port_ = kDefaultPort;
};

}  // namespace

std::unique_ptr<Command> make_up() { return std::make_unique<Up>(); }

}  // namespace agentworks::cli
