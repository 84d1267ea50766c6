// What the command table declares, as plain data: every command with its help line and options. The manual
// page and the shell completions are rendered from it, so they can never disagree with the parser.
#pragma once

#include <string>
#include <vector>

namespace agentworks::cli {

struct OptionReference {
  std::vector<std::string> names;  // "--agent", "-a"; a positional's one name has no dashes
  std::string help;
  bool takes_value = false;
  bool positional = false;
};

struct CommandReference {
  std::string path;  // "messages send"
  std::string help;
  std::vector<OptionReference> options;  // the command's own, then --config and --json
};

struct GroupReference {
  std::string name;
  std::string help;
};

struct CliReference {
  std::string version;
  std::string description;
  std::vector<GroupReference> groups;
  std::vector<CommandReference> commands;  // in help order
};

CliReference describe_cli();

}  // namespace agentworks::cli
