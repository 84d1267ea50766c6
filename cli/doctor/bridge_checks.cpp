// The bridge: its socket directory (this user's, 0700, not a symlink: the same rule every client applies,
// private_socket.hpp), the socket (a socket, this user's, 0600), and whether it answers; then the delivery route
// of each attachment from its `status` (docs/protocol.md, "Native push").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agentworks/bridge_client.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/private_socket.hpp"
#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"
#include "output.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// What is wrong with the socket directory and the command that fixes it; nullopt when it is private.
std::optional<Finding> directory_problem(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return std::nullopt;  // no bridge ever ran: the start creates it
    if (err == ELOOP || err == ENOTDIR) {
      return Finding{Status::fail, dir.string() + " is a symlink or not a directory",
                     "rm " + dir.string() + " && agentworks daemon start"};
    }
    return Finding{Status::fail, "cannot open " + dir.string() + ": " + std::strerror(err), "ls -ld " + dir.string()};
  }
  struct stat st {};
  const int rc = ::fstat(fd, &st);
  ::close(fd);
  if (rc != 0) return Finding{Status::fail, "cannot stat " + dir.string(), "ls -ld " + dir.string()};
  const auto why = private_socket::unsafe_dir_reason(st, dir);
  if (!why) return std::nullopt;
  // The same order of rules as unsafe_dir_reason, each with its own command.
  const std::string fix = st.st_uid != ::getuid() ? "sudo rm -rf " + dir.string() + " && agentworks daemon start"
                                                  : "chmod 700 " + dir.string();
  return Finding{Status::fail, *why, fix};
}

std::optional<Finding> socket_problem(const fs::path& socket) {
  struct stat st {};
  if (::lstat(socket.c_str(), &st) != 0) return std::nullopt;  // no socket: reported as "not running"
  if (!S_ISSOCK(st.st_mode)) {
    return Finding{Status::fail, socket.string() + " is not a socket", "rm " + socket.string() +
                                                                           " && agentworks daemon start"};
  }
  if (st.st_uid != ::getuid()) {
    return Finding{Status::fail, socket.string() + " is owned by uid " + std::to_string(st.st_uid) + ", not by you",
                   "sudo rm " + socket.string() + " && agentworks daemon start"};
  }
  if ((st.st_mode & 077) != 0) {
    return Finding{Status::fail, socket.string() + " has mode " + mode_text(st.st_mode) + " but must be 0600",
                   "chmod 600 " + socket.string()};
  }
  return std::nullopt;
}

// The person's switches turn a route off on purpose; anything else comes back with the chat's next hook event.
std::string native_fix(const std::string& reason, const std::string& provider, const std::string& agent) {
  if (reason.find("in the config") != std::string::npos) return "agentworks native on";
  if (reason.find("--no-native") != std::string::npos) {
    return "in that chat: " + std::string(command_word_for(provider)) + " attach " + agent +
           " \"PURPOSE\" (without --no-native)";
  }
  if (is_provider(provider, Provider::pi)) {
    if (reason.find("not a version agentworks has verified") != std::string::npos) {
      return "use Pi 0.73 (npm install -g @mariozechner/pi-coding-agent@0.73), or keep the end-of-turn delivery";
    }
    return "in that Pi: /reload (the agentworks extension waits for messages again; agentworks doctor --provider pi "
           "checks it is installed)";
  }
  return "agentworks status --agents (the route is bound again at the chat's next hook event)";
}

std::string pid_text(const json& status) {
  return status.contains("pid") && status["pid"].is_number_integer() ? std::to_string(status["pid"].get<long>())
                                                                     : std::string("?");
}

bool flag(const json& object, const char* key) { return object.contains(key) && object[key] == true; }

}  // namespace

std::vector<Finding> check_bridge(State& state) {
  const fs::path socket = bridge_client::socket_path();
  if (auto problem = directory_problem(socket.parent_path())) return {*problem};
  if (auto problem = socket_problem(socket)) return {*problem};
  const BridgeAnswer& b = state.bridge();
  if (!b.problem.empty()) return one(Status::fail, b.problem, "agentworks daemon stop && agentworks daemon start");
  if (!b.running) {
    return one(Status::fail, "the bridge is not running (no answer on " + socket.string() + ")",
               "agentworks daemon start");
  }
  return one(Status::ok, "running, pid " + pid_text(b.status) + ", version " +
                             text_or(b.status, "version", "?") + ", socket " + socket.string() +
                             " (directory 0700, socket 0600, yours)");
}

std::vector<Finding> check_delivery(State& state) {
  const BridgeAnswer& b = state.bridge();
  if (!b.running) {
    return one(Status::warn, "cannot list the attachments: " +
                                 (b.problem.empty() ? std::string("the bridge is not running") : b.problem),
               "agentworks daemon start");
  }
  std::vector<Finding> lines;
  const auto& wanted = state.inputs().provider;
  const json& attachments = b.status.contains("attachments") ? b.status["attachments"] : json::array();
  for (const auto& a : attachments) {
    if (!a.is_object()) continue;
    const std::string provider = text_or(a, "provider", "");
    if (wanted && !is_provider(provider, *wanted)) continue;
    const std::string who = text_or(a, "agent_name", "?") + " (" + provider + ":" +
                            text_or(a, "session_id", "?") + ")";
    const json d = a.contains("delivery") && a["delivery"].is_object() ? a["delivery"] : json::object();
    const std::string route = text_or(d, "route", "stop-hook");
    const std::string reason = text_or(d, "reason", "");
    if (flag(d, "native")) {
      lines.push_back({Status::ok, who + ": " + route + " (native push)", ""});
    } else if (native_route_of(provider) == NativeRoute::none) {
      lines.push_back({Status::ok, who + ": stop-hook (the only route of " + provider + ")", ""});
    } else if (flag(d, "checking")) {
      lines.push_back({Status::ok, who + ": stop-hook while " + route + " is being checked", ""});
    } else {
      // The Stop hook still delivers: a warning, with why the native route is off.
      lines.push_back({Status::warn, who + ": stop-hook, not native" + (reason.empty() ? "" : ": " + reason),
                       native_fix(reason, provider, text_or(a, "agent_name", "NAME"))});
    }
  }
  if (lines.empty()) lines.push_back({Status::ok, "no attached chats", ""});
  return lines;
}

}  // namespace agentworks::cli::doctor
