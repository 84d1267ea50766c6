#include "install/hook_binary.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
namespace {

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

fs::path find_hook_binary() {
  if (const char* given = env::get(env::Var::hook_bin); given != nullptr) {
    const fs::path p = fs::absolute(given).lexically_normal();
    if (!is_executable_file(p)) {
      throw Error(ErrorCode::not_found, "AGENTWORKS_HOOK_BIN is " + p.string() +
                                            ", which is not an executable file; point it at agentworks-hook");
    }
    return p;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw Error(ErrorCode::not_found,
                "cannot find the running agentworks binary (/proc/self/exe); set AGENTWORKS_HOOK_BIN to the "
                "absolute path of agentworks-hook");
  }
  const fs::path beside = exe.parent_path() / "agentworks-hook";
  if (is_executable_file(beside)) return beside;
  const fs::path build_tree = (exe.parent_path() / ".." / "hooks" / "agentworks-hook").lexically_normal();
  if (is_executable_file(build_tree)) return build_tree;
  throw Error(ErrorCode::not_found, "agentworks-hook was not found at " + beside.string() + " or " +
                                        build_tree.string() +
                                        "; install agentworks completely or set AGENTWORKS_HOOK_BIN to its path");
}

std::string shell_quote(const std::string& path) {
  bool plain = !path.empty();
  for (const char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("_./+,:=@%-").find(c) != std::string_view::npos;
    if (!ok) plain = false;
  }
  if (plain) return path;
  std::string out = "'";
  for (const char c : path) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace agentworks::cli::install
