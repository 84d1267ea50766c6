#include "agentworks/paths.hpp"

#include <pwd.h>
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

}  // namespace

fs::path home_dir() {
  if (const char* h = absolute_env("HOME")) return h;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) return pw->pw_dir;
  return "/";
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

fs::path data_dir() {
  if (const char* x = absolute_env("XDG_DATA_HOME")) return fs::path(x) / "agentworks";
  return home_dir() / ".local" / "share" / "agentworks";
}

fs::path server_data_dir() { return data_dir() / "server"; }

}  // namespace agentworks::paths
