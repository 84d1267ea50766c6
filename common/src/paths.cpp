#include "agentworks/paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "agentworks/environment.hpp"

namespace agentworks::paths {
namespace fs = std::filesystem;
namespace {

// An environment variable that is set and absolute (XDG says relative values are ignored).
const char* absolute_env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && v[0] == '/') ? v : nullptr;
}

// Plain read(2), not iostreams: this runs in the static hook too.
std::string home_from_passwd_file() {
  const int fd = ::open("/etc/passwd", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[8192];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return home_in_passwd(text, static_cast<unsigned>(::getuid()));
}

}  // namespace

std::string (*account_database_home)() = nullptr;

std::string home_in_passwd(std::string_view passwd_text, unsigned uid) {
  const std::string wanted = std::to_string(uid);
  while (!passwd_text.empty()) {
    const auto nl = passwd_text.find('\n');
    std::string_view line = passwd_text.substr(0, nl);
    passwd_text = nl == std::string_view::npos ? std::string_view() : passwd_text.substr(nl + 1);
    // name:password:uid:gid:gecos:home:shell
    std::string_view field[7];
    std::size_t n = 0;
    while (n < 7) {
      const auto colon = line.find(':');
      field[n++] = line.substr(0, colon);
      if (colon == std::string_view::npos) break;
      line.remove_prefix(colon + 1);
    }
    if (n == 7 && field[2] == wanted && !field[5].empty() && field[5].front() == '/') return std::string(field[5]);
  }
  return {};
}

fs::path home_dir() {
  if (const char* h = absolute_env("HOME")) return h;
  std::string home = account_database_home != nullptr ? account_database_home() : home_from_passwd_file();
  if (!home.empty()) return home;
  return "/";
}

fs::path served_crews_dir() { return config_file().parent_path() / "served"; }

fs::path server_unit_env_file() {
  if (const char* x = absolute_env("XDG_CONFIG_HOME")) return fs::path(x) / "agentworks" / "server.env";
  return home_dir() / ".config" / "agentworks" / "server.env";
}

fs::path config_file() {
  if (const char* c = env::get(env::Var::config); c != nullptr) {
    return fs::absolute(c);
  }
  if (const char* x = absolute_env("XDG_CONFIG_HOME")) return fs::path(x) / "agentworks" / "config.json";
  return home_dir() / ".config" / "agentworks" / "config.json";
}

fs::path state_dir() {
  if (const char* x = absolute_env("XDG_STATE_HOME")) return fs::path(x) / "agentworks";
  return home_dir() / ".local" / "state" / "agentworks";
}

fs::path runtime_dir() {
  // Deliberately no XDG variable: agent CLIs start hooks and MCP servers with a stripped environment (Codex keeps
  // HOME but not XDG_RUNTIME_DIR), and every process of the user must find the same bridge. A directory in the
  // user's home cannot be pre-created by another user, unlike a fixed name under /tmp.
  return home_dir() / ".local" / "state" / "agentworks" / "run";
}

fs::path bridge_socket() { return runtime_dir() / kBridgeSocketName; }

fs::path data_dir() {
  if (const char* x = absolute_env("XDG_DATA_HOME")) return fs::path(x) / "agentworks";
  return home_dir() / ".local" / "share" / "agentworks";
}

fs::path server_data_dir() { return data_dir() / "server"; }

}  // namespace agentworks::paths
