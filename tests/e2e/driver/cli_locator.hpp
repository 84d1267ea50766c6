// Where the real agent CLIs are: $AGENTWORKS_E2E_NODE_MODULES or <source>/tests/e2e/node_modules (filled by
// `npm ci` in tests/e2e). Without them a test skips, unless AGENTWORKS_E2E_REQUIRED=1 (CI), when it fails.
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::e2e {

std::filesystem::path node_modules_dir();
// node_modules/.bin/claude and .../codex; empty when missing or not runnable (`--version` fails).
std::filesystem::path claude_binary();
std::filesystem::path codex_binary();
// Claude Code 2.1.197 (no session inbox; npm alias `claude-code-2-1-197` in tests/e2e/package.json):
// node_modules/claude-code-2-1-197/bin/claude.exe; empty when missing or `--version` is not 2.1.197.
std::filesystem::path claude_2_1_197_binary();
// node_modules/.bin/pi (the Pi coding agent); empty when missing or not runnable.
std::filesystem::path pi_binary();
bool cli_required();
// PATH for the agent CLIs: node_modules/.bin, then the build dirs of agentworks and agentworks-hook, then $PATH.
std::string path_with_tools();
std::string hook_binary();

}  // namespace agentworks::e2e

// Skips (or, when required, fails) the current test when `path` is empty.
#define AW_E2E_NEED_CLI(path, what)                                                                         \
  do {                                                                                                      \
    if ((path).empty()) {                                                                                   \
      if (::agentworks::e2e::cli_required()) {                                                              \
        FAIL() << what << " not found under " << ::agentworks::e2e::node_modules_dir()                     \
               << " (run `npm ci` in tests/e2e); AGENTWORKS_E2E_REQUIRED=1 makes this a failure";           \
      }                                                                                                     \
      GTEST_SKIP() << what << " not installed (run `npm ci --no-audit --no-fund` in tests/e2e)";            \
    }                                                                                                       \
  } while (false)
