// The CLI's parser built from the one command table: app.cpp parses and dispatches with it, reference/ describes
// it (the manual page and the shell completions). CLI11 stays out of this header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace agentworks::cli {

struct GlobalOptions {
  std::string config;
  bool json = false;
};

struct RegisteredCommand {
  std::string path;  // "messages send"
  CLI::App* app;     // its subcommand, owned by the root App
  std::unique_ptr<Command> command;
};

inline constexpr char kCliVersion[] = "0.1.0";
inline constexpr char kCliDescription[] =
    "agentworks: messages between AI coding-agent chats, through an agentworks server.";

// Adds --version, the global options and every command of command_table() (with its options) to `app`.
// Throws CLI::Error when the table is inconsistent.
std::vector<RegisteredCommand> build_command_tree(CLI::App& app, GlobalOptions& global);

}  // namespace agentworks::cli
