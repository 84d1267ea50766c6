// The CLI's one command table. Each subcommand is one file in commands/ that implements Command:
// define() declares its options (parsing only), run() does the work and returns the machine-readable
// result, print() renders that result for people. app.cpp is the one dispatch point: it adds the
// global options, catches every Error and turns it into output and an exit code (docs/protocol.md).
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "options.hpp"

namespace agentworks::cli {

// Options every command shares (--config, --json), resolved before run().
struct Context {
  std::filesystem::path config_path;  // --config, else $AGENTWORKS_CONFIG, else the XDG default
  bool json = false;                  // --json: print run()'s result as JSON
  std::vector<std::string> rest;      // the words left for a command that passes them through
};

class Command {
 public:
  virtual ~Command() = default;
  // Declares this command's options. No side effects.
  virtual void define(Options& options) = 0;
  // Does the work. The result is printed verbatim with --json, so it uses the contract's field names.
  virtual nlohmann::json run(const Context& ctx) = 0;
  // Prints the result for people (stdout).
  virtual void print(const nlohmann::json& result) const = 0;
  // The exit code for a result run() returned (printed first): 0, except for a command whose result reports a
  // failure itself (`doctor` with a failed check).
  virtual int exit_status(const nlohmann::json& /*result*/) const { return 0; }
};

struct CommandEntry {
  std::string_view path;  // words after `agentworks`, e.g. "messages send"
  std::string_view help;  // one line for --help
  std::unique_ptr<Command> (*make)();
};

// Group words ("messages", "guidance") with their help line.
struct GroupEntry {
  std::string_view name;
  std::string_view help;
};

std::span<const CommandEntry> command_table();
std::span<const GroupEntry> group_table();

// Builds the CLI and runs it: the whole program. Returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace agentworks::cli
