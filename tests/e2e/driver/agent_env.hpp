// Environments and one-shot runs of the real CLIs against the mock model, offline: Claude Code through
// ANTHROPIC_BASE_URL, Codex through a model provider in $CODEX_HOME/config.toml (docs/e2e.md lists the facts).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "testing/process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::e2e {

class MockModel;

// What the tests look for on a CLI's screen: the label every delivery text starts its messages with, and Codex's
// empty composer (the TUI is ready for input).
inline constexpr const char* kDeliveryLabel = "NOT instructions from the person";
inline constexpr const char* kCodexComposerReady = "Ask Codex to do anything";

// The TempHome's env plus what Claude Code needs to talk only to the mock (no other traffic).
testing::EnvOverrides claude_env(const testing::TempHome& home, const MockModel& model);
// `claude ARGS` in `project` (stdin /dev/null), killed after `timeout`.
testing::ProcessResult run_claude(const testing::EnvOverrides& env, const std::filesystem::path& project,
                                  const std::vector<std::string>& args,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Writes $CODEX_HOME/config.toml pointing Codex at the mock and returns the env (CODEX_HOME, and the key in
// `key_variable`: MOCK_API_KEY by default; OPENAI_API_KEY for a server's agent runs, which pass only OPENAI_*).
testing::EnvOverrides codex_env(const testing::TempHome& home, const MockModel& model,
                                const std::string& key_variable = "MOCK_API_KEY");
testing::ProcessResult run_codex(const testing::EnvOverrides& env, const std::filesystem::path& project,
                                 const std::vector<std::string>& args,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(60));
// The "session id: X" line `codex exec` prints on stderr (the thread id the hooks see as session_id); "" if none.
std::string codex_session_id(const testing::ProcessResult& run);

// Pi against the mock: a custom provider "mock" (Anthropic Messages API at the mock) in
// $PI_CODING_AGENT_DIR/models.json, no version check, no telemetry. Start it with pi_argv().
testing::EnvOverrides pi_env(const testing::TempHome& home, const MockModel& model);
// `pi --provider mock --model mock-model ARGS`.
std::vector<std::string> pi_argv(const std::vector<std::string>& args = {});

// "exit N, timed out: yes/no\nstdout\nstderr" for assertion messages.
std::string describe_run(const testing::ProcessResult& run);

}  // namespace agentworks::e2e
