// The systemd user units of an installed package (agentworks-server.service, agentworks-bridge.service):
// `agentworks up` starts the embedded default through them when systemd --user runs and has them, so the
// processes are supervised and come back after a reboot; otherwise (containers, a source build) it starts
// plain processes.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace agentworks::cli {

inline constexpr char kServerUnit[] = "agentworks-server.service";
inline constexpr char kBridgeUnit[] = "agentworks-bridge.service";

struct UnitState {
  bool usable = false;  // systemd --user answers and the unit file is installed
  std::string why_not;  // for --json and status: "systemctl is not on PATH", "not installed", ...
};

// What `systemctl --user show` says of `unit`, in one call (bounded: a hung bus is answered as not usable).
struct UnitFacts {
  UnitState state;
  pid_t main_pid = 0;                // 0 when it has none
  std::vector<std::string> command;  // ExecStart's argv, specifier %h expanded with $HOME; empty when none
  int default_port = 0;              // its `Environment=AGENTWORKS_PORT=N`, 0 when it declares none
};
UnitFacts user_unit_facts(const std::string& unit);

// `systemctl --user start UNIT` (or restart); Error(internal) with systemctl's words when it fails.
void start_user_unit(const std::string& unit);
void restart_user_unit(const std::string& unit);

// The unit's main process, 0 when it has none (one property, read again around a start or restart).
pid_t user_unit_main_pid(const std::string& unit);

// The value after `option` in argv ("--listen" -> "127.0.0.1:7787"), empty when absent.
std::string option_value(const std::vector<std::string>& argv, const std::string& option);

// The server unit listens on 127.0.0.1:${AGENTWORKS_PORT}: its `Environment=` default (7787), replaced by this
// user's paths::server_unit_env_file(), which `agentworks up` writes. So two people on one computer each keep their
// own port (the second one's `up` finds 7787 taken and records another).
inline constexpr char kServerUnitListen[] = "127.0.0.1:${AGENTWORKS_PORT}";
// The port in the env file; nullopt when there is none (or it holds no valid AGENTWORKS_PORT).
std::optional<int> server_unit_port_setting();
// Records `port` for the unit (the env file, private, written atomically).
void write_server_unit_port(int port);

}  // namespace agentworks::cli
