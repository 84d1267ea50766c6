// The one dispatch point: builds the CLI from the command table, parses, runs the chosen command, and
// converts every failure into the documented output and exit code (docs/protocol.md, "Exit codes").
#include <CLI/CLI.hpp>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "command.hpp"

namespace agentworks::cli {
namespace {

struct GlobalOptions {
  std::string config;
  bool json = false;
};

// Errors go to stdout as {"error":{...}} with --json (scripts parse one stream), else one line on stderr.
int report_error(bool json, ErrorCode code, const std::string& message) {
  if (json) {
    nlohmann::json out = {{"error", {{"code", std::string(code_name(code))}, {"message", message}}}};
    std::cout << out.dump() << std::endl;
  } else {
    std::cerr << "agentworks: error: " << message << " (" << code_name(code) << ")" << std::endl;
  }
  return exit_code(code);
}

// CLI11 finds --json only after a successful parse; a usage error must still honour it.
bool argv_has_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) return true;
  }
  return false;
}

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

int run_cli(int argc, char** argv) {
  CLI::App app{"agentworks: messages between AI coding-agent chats, through an agentworks server.", "agentworks"};
  app.set_version_flag("--version", "agentworks 0.1.0");
  app.require_subcommand(1);
  GlobalOptions global;
  add_global_options(app, global);

  struct Registered {
    CLI::App* app;
    std::unique_ptr<Command> command;
  };
  std::vector<Registered> registered;
  const bool json_requested = argv_has_json(argc, argv);
  try {
    for (const auto& entry : command_table()) {
      std::string leaf;
      CLI::App* parent = parent_for(app, entry.path, leaf);
      CLI::App* sub = parent->add_subcommand(leaf, std::string(entry.help));
      add_global_options(*sub, global);
      auto command = entry.make();
      Options options(*sub);
      command->define(options);
      registered.push_back({sub, std::move(command)});
    }
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    // "A subcommand is required" hides the real mistake when a word was not recognised.
    std::vector<std::string> extra = app.remaining(true);
    std::string what = extra.empty() || e.get_name() != "RequiredError"
                           ? std::string(e.what())
                           : "unknown command or argument \"" + extra.front() + "\"";
    return report_error(json_requested, ErrorCode::usage,
                        what + "; run `agentworks --help` or `agentworks COMMAND --help`");
  } catch (const CLI::Error& e) {
    return report_error(json_requested, ErrorCode::internal, std::string("command table: ") + e.what());
  }

  Context ctx;
  ctx.json = global.json;
  for (auto& r : registered) {
    if (!r.app->parsed()) continue;
    try {
      ctx.config_path = global.config.empty() ? paths::config_file() : std::filesystem::absolute(global.config);
      ctx.rest = r.app->remaining();
      nlohmann::json result = r.command->run(ctx);
      if (ctx.json) {
        std::cout << result.dump() << std::endl;
      } else {
        r.command->print(result);
      }
      return exit_ok;
    } catch (const Error& e) {
      return report_error(ctx.json, e.code(), e.what());
    } catch (const nlohmann::json::exception& e) {
      return report_error(ctx.json, ErrorCode::internal,
                          std::string("unexpected answer from the server: ") + e.what());
    } catch (const std::exception& e) {
      return report_error(ctx.json, ErrorCode::internal, e.what());
    }
  }
  return report_error(ctx.json, ErrorCode::usage, "no command given; run `agentworks --help`");
}

}  // namespace agentworks::cli
