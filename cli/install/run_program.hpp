// Running a provider's own CLI (e.g. `claude plugin install …`) the way the person would: in the project
// directory, stdin closed, output captured for the report, with a deadline.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::cli::install {

struct ProgramResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string output;  // stdout and stderr together
  bool timed_out = false;
};

// The first executable `name` on $PATH, or nullopt.
std::optional<std::filesystem::path> find_on_path(const std::string& name);

// Runs argv (argv[0] an absolute path) in `cwd`. Throws Error(internal) when it cannot be started.
ProgramResult run_program(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          std::chrono::seconds timeout = std::chrono::seconds(120));

// argv as one shell-ready line, for messages ("claude plugin install …").
std::string command_line(const std::vector<std::string>& argv);

}  // namespace agentworks::cli::install
