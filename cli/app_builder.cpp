#include "app_builder.hpp"

#include <CLI/CLI.hpp>

#include <string_view>

namespace agentworks::cli {
namespace {

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_option("--config", global.config,
                 "Config file to use (default: $AGENTWORKS_CONFIG, else $XDG_CONFIG_HOME/agentworks/config.json)");
  app.add_flag("--json", global.json, "Print machine-readable JSON on stdout (errors too)");
}

// Finds or creates the group subcommand for the words before the last one of `path`.
CLI::App* parent_for(CLI::App& root, std::string_view path, std::string& leaf) {
  CLI::App* parent = &root;
  std::string_view rest = path;
  for (auto space = rest.find(' '); space != std::string_view::npos; space = rest.find(' ')) {
    std::string word(rest.substr(0, space));
    rest.remove_prefix(space + 1);
    CLI::App* group = nullptr;
    try {
      group = parent->get_subcommand(word);
    } catch (const CLI::OptionNotFound&) {
      std::string help;
      for (const auto& g : group_table()) {
        if (g.name == word) help = std::string(g.help);
      }
      group = parent->add_subcommand(word, help);
      group->require_subcommand(1);
    }
    parent = group;
  }
  leaf = std::string(rest);
  return parent;
}

}  // namespace

std::vector<RegisteredCommand> build_command_tree(CLI::App& app, GlobalOptions& global) {
  app.set_version_flag("--version", std::string("agentworks ") + kCliVersion);
  app.require_subcommand(1);
  add_global_options(app, global);
  std::vector<RegisteredCommand> registered;
  for (const auto& entry : command_table()) {
    std::string leaf;
    CLI::App* parent = parent_for(app, entry.path, leaf);
    CLI::App* sub = parent->add_subcommand(leaf, std::string(entry.help));
    add_global_options(*sub, global);
    auto command = entry.make();
    Options options(*sub);
    command->define(options);
    registered.push_back({std::string(entry.path), sub, std::move(command)});
  }
  return registered;
}

}  // namespace agentworks::cli
