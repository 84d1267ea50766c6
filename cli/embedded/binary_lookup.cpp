#include "embedded/binary_lookup.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "agentworks/error.hpp"

namespace agentworks::cli {
namespace fs = std::filesystem;

namespace {

bool executable_file(const fs::path& p) {
  std::error_code ec;
  return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p, ec);
}

}  // namespace

fs::path find_program(const char* name, const char* build_folder, env::Var override_var, const char* override_name) {
  if (const char* given = env::get(override_var); given != nullptr) {
    if (executable_file(given)) return given;
    throw Error(ErrorCode::not_found, std::string(override_name) + "=" + given + " is not an executable file");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = self.parent_path();
    for (const fs::path& candidate : {dir / name, dir.parent_path() / build_folder / name}) {
      if (executable_file(candidate)) return candidate;
    }
  }
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty() && executable_file(fs::path(dir) / name)) return fs::path(dir) / name;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  throw Error(ErrorCode::not_found, std::string("cannot find ") + name + " next to agentworks or on PATH; install it (or set " +
                                        override_name + ")");
}

}  // namespace agentworks::cli
