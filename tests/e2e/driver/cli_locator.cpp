#include "driver/cli_locator.hpp"

#include <cstdlib>

#include "harness/binaries.hpp"
#include "harness/process.hpp"

#ifndef AGENTWORKS_E2E_DEFAULT_NODE_MODULES
#error "AGENTWORKS_E2E_DEFAULT_NODE_MODULES must be defined by CMake"
#endif
#ifndef AGENTWORKS_HOOK_BIN
#error "AGENTWORKS_HOOK_BIN must be defined by CMake"
#endif

namespace agentworks::e2e {
namespace {

std::filesystem::path runnable(const std::string& name) {
  const auto path = node_modules_dir() / ".bin" / name;
  if (!std::filesystem::exists(path)) return {};
  testing::RunOptions options;
  options.timeout = std::chrono::seconds(30);
  const auto r = testing::run_process({path.string(), "--version"}, options);
  return r.exit_code == 0 ? path : std::filesystem::path();
}

}  // namespace

std::filesystem::path node_modules_dir() {
  const char* v = std::getenv("AGENTWORKS_E2E_NODE_MODULES");
  return (v != nullptr && v[0] != '\0') ? std::filesystem::path(v)
                                        : std::filesystem::path(AGENTWORKS_E2E_DEFAULT_NODE_MODULES);
}

std::filesystem::path claude_binary() {
  static const auto path = runnable("claude");
  return path;
}

std::filesystem::path codex_binary() {
  static const auto path = runnable("codex");
  return path;
}

bool cli_required() {
  const char* v = std::getenv("AGENTWORKS_E2E_REQUIRED");
  return v != nullptr && std::string(v) == "1";
}

std::string hook_binary() {
  const char* v = std::getenv("AGENTWORKS_TEST_HOOK_BIN");
  return (v != nullptr && v[0] != '\0') ? std::string(v) : std::string(AGENTWORKS_HOOK_BIN);
}

std::string path_with_tools() {
  const auto cli_dir = std::filesystem::path(testing::cli_binary()).parent_path().string();
  const auto hook_dir = std::filesystem::path(hook_binary()).parent_path().string();
  const char* path = std::getenv("PATH");
  return (node_modules_dir() / ".bin").string() + ":" + cli_dir + ":" + hook_dir + ":" +
         (path != nullptr ? path : "/usr/bin:/bin");
}

}  // namespace agentworks::e2e
