// Binding an attachment to Claude Code's session inbox: exact registration, private files, same process.
// Every check fails closed with one sentence the person sees in status. The push is in claude_inbox_push.cpp.
#include "native/claude_inbox.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "agentworks/native_versions.hpp"
#include "agentworks/process_ancestry.hpp"
#include "agentworks/sha256.hpp"

namespace agentworks::bridge::native {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxSessionFileBytes = 64 * 1024;  // a registration is ~600 bytes
constexpr long kKnownPeerProtocol = 1;


bool private_owner_ok(const struct stat& st, mode_t forbidden_bits) {
  return st.st_uid == geteuid() && (st.st_mode & forbidden_bits) == 0;
}

// Reads a small regular file owned by us without following a symlink; `what` names it in the reason.
// `forbidden_bits`: mode bits that must be clear (e.g. 077 for a key, 022 for the registration).
std::optional<std::string> read_own_file(const std::filesystem::path& path, mode_t forbidden_bits,
                                         const std::string& what, std::string& reason) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      reason = what + " is a symlink; the native route needs Claude's own file";
    } else if (err == ENOENT) {
      reason = what + " is missing (" + path.string() + ")";
    } else {
      reason = what + " cannot be read: " + std::strerror(err);
    }
    return std::nullopt;
  }
  std::optional<std::string> out;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    reason = what + " is not a regular file";
  } else if (st.st_uid != geteuid()) {
    reason = what + " is not owned by this user";
  } else if ((st.st_mode & forbidden_bits) != 0) {
    reason = what + " is readable or writable by other users";
  } else if (static_cast<std::size_t>(st.st_size) > kMaxSessionFileBytes) {
    reason = what + " is too large";
  } else {
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got == text.size()) {
      out = std::move(text);
    } else {
      reason = what + " could not be read completely";
    }
  }
  ::close(fd);
  return out;
}

std::optional<json> parse_object(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  return j;
}

const std::string* string_field(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

// The directory holding the registration: ours, nobody else may write into it.
bool sessions_dir_ok(const std::filesystem::path& dir, std::string& reason) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    reason = "Claude's sessions directory is missing (" + dir.string() + ")";
    return false;
  }
  if (!private_owner_ok(st, S_IWGRP | S_IWOTH)) {
    reason = "Claude's sessions directory is not private to this user";
    return false;
  }
  return true;
}

// The socket and its directory: ours, no symlink, no group/other bits.
bool socket_ok(const std::string& socket_path, std::string& reason) {
  if (socket_path.empty() || socket_path.front() != '/' || socket_path.size() >= sizeof(sockaddr_un::sun_path)) {
    reason = "the session's socket path is not usable";
    return false;
  }
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) != 0) {
    reason = "the session's socket is missing (" + socket_path + ")";
    return false;
  }
  if (!S_ISSOCK(st.st_mode)) {
    reason = "the session's socket path is not a socket";
    return false;
  }
  if (!private_owner_ok(st, S_IRWXG | S_IRWXO)) {
    reason = "the session's socket is not private to this user";
    return false;
  }
  const std::filesystem::path parent = std::filesystem::path(socket_path).parent_path();
  struct stat dst {};
  if (::lstat(parent.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode) || !private_owner_ok(dst, S_IRWXG | S_IRWXO)) {
    reason = "the session's socket directory is not private to this user";
    return false;
  }
  return true;
}

}  // namespace

bool claude_version_known(std::string_view version) { return native_versions::claude_inbox_known(version); }

bool claude_peer_protocol_known(long protocol) { return protocol == kKnownPeerProtocol; }

std::filesystem::path claude_sessions_dir(const std::string& claude_config_dir, const std::string& home) {
  if (!claude_config_dir.empty()) return std::filesystem::path(claude_config_dir) / "sessions";
  return std::filesystem::path(home) / ".claude" / "sessions";
}

// The check order makes the reason the most useful one: identity first (which file is this?), then protocol
// and version (can it take a push?), then the private files, then the live process.
ClaudeBind bind_claude_session(const std::filesystem::path& sessions_dir, long pid, const std::string& proc_start,
                               const std::string& session_id) {
  ClaudeBind out;
  std::string& reason = out.reason;
  if (pid <= 0 || proc_start.empty() || session_id.empty()) {
    reason = "the attached Claude session's process is not known";
    return out;
  }
  if (!sessions_dir_ok(sessions_dir, reason)) return out;
  const std::string pid_text = std::to_string(pid);
  const auto reg_text = read_own_file(sessions_dir / (pid_text + ".json"), S_IWGRP | S_IWOTH,
                                      "the session registration", reason);
  if (!reg_text) return out;
  const auto reg = parse_object(*reg_text);
  if (!reg) {
    reason = "the session registration is not a JSON object";
    return out;
  }
  const auto pid_it = reg->find("pid");
  if (pid_it == reg->end() || !pid_it->is_number_integer() || pid_it->get<long>() != pid) {
    reason = "registration pid does not match this process";
    return out;
  }
  const std::string* reg_start = string_field(*reg, "procStart");
  if (reg_start == nullptr || *reg_start != proc_start) {
    reason = "registration procStart does not match this process";
    return out;
  }
  const std::string* reg_session = string_field(*reg, "sessionId");
  if (reg_session == nullptr || *reg_session != session_id) {
    reason = "registration sessionId does not match the attached session";
    return out;
  }
  const std::string* version = string_field(*reg, "version");
  const std::string version_text = version != nullptr ? *version : std::string("(unknown version)");
  const auto proto_it = reg->find("peerProtocol");
  if (proto_it == reg->end() || !proto_it->is_number_integer() ||
      !claude_peer_protocol_known(proto_it->get<long>())) {
    reason = "Claude Code " + version_text + " speaks an unknown session protocol";
    return out;
  }
  const std::string* socket_path = string_field(*reg, "messagingSocketPath");
  if (version == nullptr || !claude_version_known(*version) || socket_path == nullptr) {
    reason = "Claude Code " + version_text + " has no session inbox the bridge knows";
    return out;
  }
  // The key file is named after the socket path, so a registration cannot point us at another session's key.
  const auto key_text = read_own_file(sessions_dir / (pid_text + "." + sha256_hex(*socket_path) + ".key"),
                                      S_IRWXG | S_IRWXO, "the session key file", reason);
  if (!key_text) return out;
  const auto key = parse_object(*key_text);
  const std::string* key_start = key ? string_field(*key, "procStart") : nullptr;
  const std::string* token = key ? string_field(*key, "peerToken") : nullptr;
  if (key_start == nullptr || *key_start != proc_start) {
    reason = "key file procStart does not match this process";
    return out;
  }
  if (token == nullptr || token->empty()) {
    reason = "the session key file has no token";
    return out;
  }
  if (!socket_ok(*socket_path, reason)) return out;
  const auto live = process::key_of(pid);
  if (!live || live->start != proc_start) {
    reason = "the Claude process has exited";
    return out;
  }
  ClaudeBinding b;
  b.pid = pid;
  b.proc_start = proc_start;
  b.session_id = session_id;
  b.socket_path = *socket_path;
  b.token = *token;
  b.version = *version;
  if (const std::string* entry = string_field(*reg, "entrypoint")) b.entrypoint = *entry;
  out.binding = std::move(b);
  out.reason.clear();
  return out;
}

std::string claude_frames(const ClaudeBinding& b, const std::string& msg_id, const std::string& text) {
  const json auth = {{"type", "auth"}, {"token", b.token}};
  const json user = {{"type", "user"},
                     {"session_id", b.session_id},
                     {"msg_id", msg_id},
                     {"priority", "next"},  // never "now": it aborts the request in flight (R-N4)
                     {"message", {{"role", "user"}, {"content", text}}}};
  constexpr auto replace = json::error_handler_t::replace;  // invalid UTF-8 must not throw
  return auth.dump(-1, ' ', false, replace) + "\n" + user.dump(-1, ' ', false, replace) + "\n";
}

// Used by push_claude (claude_inbox_push.cpp) right before connecting.
std::string claude_push_precheck(const ClaudeBinding& b) {
  const auto live = process::key_of(b.pid);
  if (!live || live->start != b.proc_start) return "the Claude process has exited";
  std::string reason;
  if (!socket_ok(b.socket_path, reason)) return reason;
  return {};
}

}  // namespace agentworks::bridge::native
