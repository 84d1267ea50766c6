#include "driver/cli_locator.hpp"

#include <cstdlib>

#include "testing/binaries.hpp"
#include "testing/process.hpp"

#ifndef AGENTWORKS_E2E_DEFAULT_NODE_MODULES
#error "AGENTWORKS_E2E_DEFAULT_NODE_MODULES must be defined by CMake"
#endif
#ifndef AGENTWORKS_HOOK_BIN
#error "AGENTWORKS_HOOK_BIN must be defined by CMake"
#endif

namespace agentworks::e2e {
namespace {

// `path` when `path --version` exits 0 and (when given) its output starts with `version`.
std::filesystem::path runnable_at(const std::filesystem::path& path, const std::string& version = "") {
  if (!std::filesystem::exists(path)) return {};
  testing::RunOptions options;
  options.timeout = std::chrono::seconds(30);
  const auto r = testing::run_process({path.string(), "--version"}, options);
  if (r.exit_code != 0) return {};
  return r.out.rfind(version, 0) == 0 ? path : std::filesystem::path();
}

std::filesystem::path runnable(const std::string& name) { return runnable_at(node_modules_dir() / ".bin" / name); }

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

std::filesystem::path claude_2_1_197_binary() {
  static const auto path =
      runnable_at(node_modules_dir() / "claude-code-2-1-197" / "bin" / "claude.exe", "2.1.197 (Claude Code)");
  return path;
}

std::filesystem::path codex_binary() {
  static const auto path = runnable("codex");
  return path;
}

std::filesystem::path pi_binary() {
  static const auto path = runnable("pi");
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
