// agentworks up [--port N]: the embedded default. Starts agentworks-server on loopback (or finds it running),
// waits until it answers, logs this CLI in with the owner token, and starts the bridge. Through the systemd user
// units when systemd --user runs and has them (embedded/user_units.hpp), else as plain processes.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
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
#include "embedded/user_units.hpp"
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

int port_in(const std::string& url) {
  auto colon = url.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    return std::stoi(url.substr(colon + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

// The port of the embedded server this login last used, so that a restarted one keeps the address attached chats
// know (`up --port 0` once picked it); nullopt when there is no such login.
std::optional<int> remembered_port(const std::filesystem::path& config_path) {
  try {
    const auto previous = load_config(config_path);
    if (previous && previous->embedded && previous->server_url.rfind("http://127.0.0.1:", 0) == 0) {
      const int port = port_in(previous->server_url);
      if (port > 0 && port <= 65535) return port;
    }
  } catch (const Error&) {
    // unreadable: `up` replaces it with a new login anyway
  }
  return std::nullopt;
}

[[noreturn]] void port_taken(int port) {
  throw Error(ErrorCode::conflict, "port " + std::to_string(port) +
                                       " on 127.0.0.1 is already in use by another program (another person's "
                                       "server?); choose another with `agentworks up --port N` (0 picks a free "
                                       "port; attached chats then need `/agentworks attach` again to learn the new "
                                       "address)");
}

// Whether the server unit fits this `up`: installed, on loopback, on our data directory; and on which port. A unit
// on 127.0.0.1:${AGENTWORKS_PORT} takes the port this `up` wants (recorded in the user's env file); one with a
// fixed port serves only that port.
struct ServerUnitPlan {
  bool usable = false;
  std::string why_not;
  int port = 0;
  bool record_port = false;  // the env file is to name `port` before the unit (re)starts
  bool may_move = false;     // nobody chose the port and no login knows it: another free one will do
};

ServerUnitPlan plan_server_unit(const std::filesystem::path& data, std::optional<int> asked,
                                std::optional<int> remembered) {
  const UnitFacts facts = user_unit_facts(kServerUnit);
  if (!facts.state.usable) return {false, facts.state.why_not, 0, false};
  const auto& argv = facts.command;
  const std::string listen = option_value(argv, "--listen");
  const std::string unit_data = option_value(argv, "--data");
  const std::string unit = kServerUnit;
  std::error_code ec;
  const auto canonical = [&ec](const std::filesystem::path& p) { return std::filesystem::weakly_canonical(p, ec); };
  if (unit_data.empty() || canonical(unit_data) != canonical(data))
    return {false, unit + " keeps its data in " + unit_data + ", not in " + data.string(), 0, false};
  if (listen == kServerUnitListen) {
    const auto setting = server_unit_port_setting();
    const int unit_port = setting ? *setting : facts.default_port;
    if (unit_port <= 0)
      return {false, unit + " listens on " + listen + " but declares no AGENTWORKS_PORT", 0, false};
    int port = asked ? *asked : remembered.value_or(unit_port);
    if (port == 0) port = free_loopback_port();
    if (port <= 0) throw Error(ErrorCode::unavailable, "no free port on 127.0.0.1; try again");
    return {true, "", port, port != unit_port, !asked && !remembered};
  }
  int unit_port = 0;
  if (listen.rfind("127.0.0.1:", 0) == 0) {
    try {
      unit_port = std::stoi(listen.substr(10));
    } catch (const std::exception&) {
      unit_port = 0;
    }
  }
  if (unit_port <= 0)
    return {false, unit + " does not listen on a fixed 127.0.0.1 port (--listen " + listen + ")", 0, false};
  if (asked && *asked != unit_port)
    return {false, "--port " + std::to_string(*asked) + " differs from " + unit + "'s " + listen, 0, false};
  return {true, "", unit_port, false};
}

// Starts (or finds started) the server unit on the plan's port and records its main process like a spawned
// server.
ServerRecord start_server_unit(ServerUnitPlan plan, bool& already_running) {
  const pid_t before = user_unit_main_pid(kServerUnit);
  const bool running = before > 0 && process_alive(before);
  already_running = running && !plan.record_port;
  if (!already_running && !loopback_port_free(plan.port)) {
    if (!plan.may_move) port_taken(plan.port);
    plan.port = free_loopback_port();  // e.g. another person's server holds the default
    plan.record_port = true;
    if (plan.port <= 0) throw Error(ErrorCode::unavailable, "no free port on 127.0.0.1; try again");
  }
  if (plan.record_port) write_server_unit_port(plan.port);
  if (running && plan.record_port) {
    restart_user_unit(kServerUnit);  // it listens elsewhere: the person asked for this port
  } else {
    start_user_unit(kServerUnit);
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(plan.port);
  if (!wait_healthy(url, kStartTimeout)) {
    throw Error(ErrorCode::internal, std::string(kServerUnit) + " started but nothing answers /v1/health at " + url +
                                         "; see `journalctl --user -u " + kServerUnit + "`");
  }
  const pid_t pid = user_unit_main_pid(kServerUnit);
  if (pid <= 0 || !is_agentworks_server(pid)) {
    throw Error(ErrorCode::internal, std::string("systemd names no agentworks-server as the main process of ") +
                                         kServerUnit + "; see `systemctl --user status " + kServerUnit + "`");
  }
  ServerRecord record{pid, url, plan.port, static_cast<std::int64_t>(std::time(nullptr))};
  write_server_record(record);
  return record;
}

// The plain-process path: a free port, the server spawned as a daemon, its record written once it answers.
// `may_move`: nobody chose the port and no login knows it, so a taken one is replaced by a free one.
ServerRecord spawn_server_process(const std::filesystem::path& data, int port, bool may_move) {
  if (!loopback_port_free(port)) {
    if (!may_move) port_taken(port);
    port = 0;  // the server binds a free one
  }
  SpawnedServer spawned = spawn_server(find_server_binary(), data, port, server_log_path(), kStartTimeout);
  ServerRecord record{spawned.pid, spawned.url, port_in(spawned.url), static_cast<std::int64_t>(std::time(nullptr))};
  write_server_record(record);
  if (!wait_healthy(record.url, kStartTimeout)) {
    throw Error(ErrorCode::internal, "the embedded server started at " + record.url +
                                         " but does not answer /v1/health; see " + server_log_path().string());
  }
  return record;
}

// A bridge that answers already (a unit's or a plain process) is kept; otherwise the unit is started and waited for.
BridgeStart start_bridge_unit() {
  BridgeStart result;
  if (const auto ping = bridge_client::ping(std::chrono::seconds(2))) {
    result.already_running = true;
    result.pid = ping->value("pid", 0);
    return result;
  }
  start_user_unit(kBridgeUnit);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto ping = bridge_client::ping(std::chrono::seconds(2))) {
      result.pid = ping->value("pid", 0);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw Error(ErrorCode::internal, std::string(kBridgeUnit) + " started but the bridge does not answer on " +
                                       bridge_client::socket_path().string() + "; see `journalctl --user -u " +
                                       kBridgeUnit + "`");
}

class Up final : public Command {
 public:
  void define(Options& options) override {
    options.option("--port", port_,
                   "Loopback port for the embedded server (default: the one it last used, else 7787; 0 picks a "
                   "free one); with the systemd unit it is recorded for the unit");
  }

  json run(const Context& ctx) override {
    if (port_ && (*port_ < 0 || *port_ > 65535)) throw Error(ErrorCode::bad_request, "--port must be 0-65535");
    const std::optional<int> remembered = remembered_port(ctx.config_path);
    const int port = port_ ? *port_ : remembered.value_or(kDefaultPort);
    const auto data = paths::server_data_dir();
    make_private_dirs(data);
    FileLock lock(data / "up.lock");  // two concurrent `up`s start one server

    bool already_running = false;
    ServerRecord record;
    std::string server_supervisor = "process";
    std::string server_unit_note;
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
      const ServerUnitPlan plan = plan_server_unit(data, port_, remembered);
      server_unit_note = plan.why_not;
      if (plan.usable) {
        record = start_server_unit(plan, already_running);
        server_supervisor = "systemd";
      } else {
        record = spawn_server_process(data, port, !port_ && !remembered);
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
    const UnitState bridge_unit = user_unit_facts(kBridgeUnit).state;
    const BridgeStart bridge = bridge_unit.usable ? start_bridge_unit() : start_bridge();

    json result = public_login_json(config);
    result["pid"] = record.pid;
    result["already_running"] = already_running;
    result["log"] = server_log_path().string();
    result["supervisor"] = server_supervisor;
    if (server_supervisor == "process" && !server_unit_note.empty()) result["systemd_unit_unused"] = server_unit_note;
    result["bridge"] = {{"pid", bridge.pid}, {"already_running", bridge.already_running},
                        {"supervisor", bridge_unit.usable ? "systemd" : "process"}};
    return result;
  }

  void print(const json& r) const override {
    std::cout << (r.value("already_running", false) ? "agentworks server already running at "
                                                     : "agentworks server started at ")
              << text_or(r, "server_url") << " (pid " << r.value("pid", 0)
              << (r.value("supervisor", "") == "systemd" ? std::string(", systemd unit ") + kServerUnit : "") << ")\n"
              << "logged in as account " << text_or(r, "account_name") << " (connection "
              << text_or(r, "connection_id") << ")\n";
    const json& bridge = r["bridge"];
    std::cout << (bridge.value("already_running", false) ? "agentworks bridge already running (pid "
                                                          : "agentworks bridge started (pid ")
              << bridge.value("pid", 0)
              << (bridge.value("supervisor", "") == "systemd" ? std::string(", systemd unit ") + kBridgeUnit : "")
              << ")\n";
  }

 private:
  std::optional<int> port_;
};

}  // namespace

std::unique_ptr<Command> make_up() { return std::make_unique<Up>(); }

}  // namespace agentworks::cli
