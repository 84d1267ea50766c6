// The one dispatch point: builds the CLI from the command table (app_builder.cpp), parses, runs the chosen
// command, and converts every failure into the documented output and exit code (docs/protocol.md, "Exit codes").
#include <CLI/CLI.hpp>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "app_builder.hpp"
#include "command.hpp"

namespace agentworks::cli {
namespace {

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

}  // namespace

int run_cli(int argc, char** argv) {
  paths::use_account_database();
  CLI::App app{kCliDescription, "agentworks"};
  GlobalOptions global;
  std::vector<RegisteredCommand> registered;
  const bool json_requested = argv_has_json(argc, argv);
  try {
    registered = build_command_tree(app, global);
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
      return r.command->exit_status(result);
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
