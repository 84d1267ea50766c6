// The one dispatch point: builds the CLI from the command table (app_builder.cpp), parses, runs the chosen
// command, and converts every failure into the documented output and exit code (docs/protocol.md, "Exit codes").
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <sstream>
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

// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The subcommand of the deepest command the person did type that `word` was most likely meant to be ("" when
// none is close: at most two edits, and fewer than half the word).
std::string closest_command(CLI::App& app, const std::string& word) {
  CLI::App* at = &app;
  for (auto parsed = at->get_subcommands(); !parsed.empty(); parsed = at->get_subcommands()) at = parsed.front();
  std::string best;
  std::size_t best_distance = 3;
  for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; })) {
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_distance && 2 * d < word.size()) {
      best = sub->get_name();
      best_distance = d;
    }
  }
  return best;
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
    std::string what = e.what();
    if (!extra.empty() && e.get_name() == "RequiredError") {
      what = "unknown command or argument \"" + extra.front() + "\"";
      if (const auto meant = closest_command(app, extra.front()); !meant.empty())
        what += " (did you mean \"" + meant + "\"?)";
    } else if (const auto colon = what.find(": ");
               dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && colon != std::string::npos) {
      // CLI11 lists them last first (and keeps no list to read); the person typed them in order.
      std::vector<std::string> words;
      std::istringstream listed(what.substr(colon + 2));
      for (std::string w; listed >> w;) words.insert(words.begin(), w);
      what = "unexpected argument" + std::string(words.size() > 1 ? "s" : "") + ":";
      for (const auto& word : words) what += " " + word;
    }
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
