// Running the `agentworks` CLI as a person or script would: in a temp HOME, optionally with its own config file
// (AGENTWORKS_CONFIG), with a timeout. Results keep exit code, stdout and stderr for assertions.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "testing/process.hpp"

namespace agentworks::testing {

struct CliResult : ProcessResult {
  std::vector<std::string> args;
  // stdout parsed as JSON (throws with the output quoted when it is not JSON).
  nlohmann::json json() const;
  // error.code of a --json error on stdout, "" when stdout is not an error object.
  std::string error_code() const;
  // "agentworks ARGS -> exit N\nstdout...\nstderr..." for assertion messages.
  std::string describe() const;
};

// Runs `agentworks ARGS` with `env` (on top of the inherited environment).
CliResult run_cli(const std::vector<std::string>& args, const EnvOverrides& env,
                  const std::optional<std::string>& stdin_data = std::nullopt,
                  std::chrono::milliseconds timeout = std::chrono::seconds(40));

// One CLI identity: an environment (usually a TempHome's) and optionally a private config file.
class Cli {
 public:
  explicit Cli(EnvOverrides env, std::filesystem::path config_path = {});
  CliResult run(const std::vector<std::string>& args, const std::optional<std::string>& stdin_data = std::nullopt,
                std::chrono::milliseconds timeout = std::chrono::seconds(40)) const;
  // run() with --json added.
  CliResult json(const std::vector<std::string>& args, const std::optional<std::string>& stdin_data = std::nullopt,
                 std::chrono::milliseconds timeout = std::chrono::seconds(40)) const;
  // `agentworks login --server URL --token-stdin` with the token on stdin.
  CliResult login(const std::string& url, const std::string& token) const;
  const EnvOverrides& env() const { return env_; }
  // Starts the CLI in the background (e.g. a blocked long poll); output goes to files in `dir`.
  Child start(const std::vector<std::string>& args, const std::filesystem::path& dir, const std::string& tag) const;

 private:
  EnvOverrides env_;
};

}  // namespace agentworks::testing
