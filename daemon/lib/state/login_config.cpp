#include "state/login_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "platform/unique_fd.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {
namespace {

constexpr off_t kMaxConfigBytes = 1 << 20;

// The config text, read without ever blocking the bridge's loop: a FIFO, a device or a directory
// named as the config is refused, not opened for a blocking read. O_NONBLOCK makes opening a FIFO return at
// once; the type is checked on the opened descriptor, so a symlink to a regular file (a dotfile manager's) still
// works while a symlink to anything else is refused. nullopt when the file does not exist.
std::optional<std::string> read_config_text(const std::filesystem::path& path) {
  const std::string fix = " (check its permissions)";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::bad_request, "the config " + path.string() +
                                            " is not a regular file (a FIFO, device or directory); name the CLI "
                                            "config file itself (agentworks login writes it)");
  }
  if (st.st_size > kMaxConfigBytes) {
    throw Error(ErrorCode::bad_request, "the config " + path.string() + " is over 1 MiB; it is not an agentworks "
                                                                        "CLI config");
  }
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > static_cast<std::size_t>(kMaxConfigBytes)) {
      throw Error(ErrorCode::bad_request, "the config " + path.string() + " is over 1 MiB; it is not an agentworks "
                                                                          "CLI config");
    }
  }
  return text;
}

std::optional<Config> read_config(const std::filesystem::path& path) {
  const auto text = read_config_text(path);
  if (!text) return std::nullopt;
  const std::string fix = "; fix it, or remove it and log in again (`agentworks login` or `agentworks up`)";
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) {
    throw Error(ErrorCode::bad_request, "the config file " + path.string() + " is not valid JSON" + fix);
  }
  try {
    return config_from_json(j);
  } catch (const Error& e) {
    throw Error(ErrorCode::bad_request, "the config file " + path.string() + " is invalid: " + e.what() + fix);
  }
}

}  // namespace

Config login_config(const nlohmann::json& req) {
  const auto path_text = optional_string(req, "config", 4096);
  const std::filesystem::path path = path_text ? std::filesystem::path(*path_text) : paths::config_file();
  if (!path.is_absolute()) throw Error(ErrorCode::bad_request, "field 'config' must be an absolute path");
  const auto cfg = read_config(path);
  if (!cfg || !cfg->logged_in()) {
    throw Error(ErrorCode::unauthenticated,
                "no login in " + path.string() + "; sign in with `agentworks login` first");
  }
  if (cfg->kind == "child") {
    throw Error(ErrorCode::forbidden, "the login in " + path.string() +
                                          " is an agent's child connection; attach needs the person's login");
  }
  return *cfg;
}

}  // namespace agentworks::bridge
